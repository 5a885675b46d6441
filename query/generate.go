package query

//go:generate go run ./internal/gen -o stopwords_tables.go -iso ../tests/node/node_modules/stopwords-iso/stopwords-iso.json
//go:generate go run ./internal/timegen -o timephrases_tables.go -cldr ../tests/node/node_modules/cldr-dates-full
