package tokenizer

//go:generate go run ./internal/gen -ucd /usr/share/unicode -o tables.go
