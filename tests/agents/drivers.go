package agents

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionsearch/sessionsearch/internal/scriptmodel"
)

// agents are the programs the test drives, each with what it needs to run
// offline against the scripted model (docs/contributing.md).
var agents = []Agent{
	claudeCode("2.1.197"),
	claudeCode("2.1.332"),
	codex,
	gemini,
	qwenCode,
	pi,
	copilot,
	opencode,
	kiloCode,
	continueCLI,
	factoryDroid,
	openclaw,
}

// Claude Code: a native program; ANTHROPIC_BASE_URL points it at the model
// (Anthropic's Messages API); -p runs one turn, --continue resumes the
// latest session of the directory.
func claudeCode(version string) Agent {
	return Agent{
		Name:    "claude-code-" + version,
		Store:   "claude-code",
		Program: nativeProgram("claude-code-"+version, "@anthropic-ai/claude-code-linux-x64", version, "claude"),
		Read: func(path string) scriptmodel.Call {
			return scriptmodel.Call{Name: "Read", Args: map[string]any{"file_path": path}}
		},
		Setup: func(t *testing.T, r *Run) []string {
			return []string{"ANTHROPIC_BASE_URL=" + r.Model, "ANTHROPIC_API_KEY=sk-scripted",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
		},
		Args: func(prompt string, resume bool) []string {
			if resume {
				return []string{"-p", "--continue", prompt}
			}
			return []string{"-p", prompt}
		},
	}
}

// Codex CLI: its Node wrapper runs the native program of its platform
// package; a model provider in ~/.codex/config.toml with the model's
// base_url (OpenAI's Responses API). It reads a file with its shell tool,
// exec_command; exec resume --last resumes.
var codex = Agent{
	Name:    "codex-0.171.0",
	Store:   "codex",
	Program: nodeProgram(filepath.Join(modules, "@openai/codex/bin/codex.js")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "exec_command", Args: map[string]any{"cmd": "cat " + path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeFile(t, filepath.Join(r.Home, ".codex", "config.toml"), `model = "scripted"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "`+r.Model+`/v1"
wire_api = "responses"
`)
		return nil
	},
	Args: func(prompt string, resume bool) []string {
		if resume {
			return []string{"exec", "--skip-git-repo-check", "resume", "--last", prompt}
		}
		return []string{"exec", "--skip-git-repo-check", prompt}
	},
}

// Gemini CLI: GOOGLE_GEMINI_BASE_URL points its Gemini API client at the
// model, with the API key sign-in chosen in settings.json and the project
// trusted; a named model skips its routing classifier. --yolo lets it read
// without asking; --resume latest resumes. It names a session's file by the
// minute it starts, so the resume waits for the next minute: then it
// writes a second file for the session, as it does after nearly every real
// resume (docs/agents/gemini.md AG12).
var gemini = Agent{
	Name:    "gemini-cli-0.61.0",
	Store:   "gemini",
	Program: nodeProgram(filepath.Join(modules, "@google/gemini-cli/bundle/gemini.js")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read_file", Args: map[string]any{"file_path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".gemini", "settings.json"),
			map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}})
		return []string{"GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL=" + r.Model, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	},
	Args: func(prompt string, resume bool) []string {
		args := []string{"--yolo", "-m", "gemini-2.5-pro"}
		if resume {
			args = append(args, "--resume", "latest")
		}
		return append(args, "-p", prompt)
	},
	BeforeResume: func(t *testing.T, r *Run) {
		now := time.Now()
		time.Sleep(now.Truncate(time.Minute).Add(time.Minute + time.Second).Sub(now))
	},
}

// OpenCode: the native program of opencode-ai's Linux x64 package (what its
// install script links; package.json says why it is a dependency of its
// own); an OpenAI-compatible provider (bundled in it)
// with the model's baseURL in ~/.config/opencode/opencode.json (Chat
// Completions; the model's reasoning_content is its thinking). The
// OPENCODE_DISABLE_* variables keep it from fetching models, plugins and
// updates; run --continue resumes.
var opencode = Agent{
	Name:    "opencode-1.18.33",
	Store:   "opencode",
	Program: nativeProgram("", "opencode-linux-x64", "1.18.33", "bin/opencode"),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read", Args: map[string]any{"filePath": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".config", "opencode", "opencode.json"), map[string]any{
			"provider": map[string]any{"scripted": map[string]any{
				"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
				"options": map[string]any{"baseURL": r.Model + "/v1", "apiKey": "scripted"},
				"models":  map[string]any{"scripted": map[string]any{"name": "Scripted", "reasoning": true, "tool_call": true}},
			}},
			"model": "scripted/scripted", "autoupdate": false, "share": "disabled",
		})
		return []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1"}
	},
	Args: func(prompt string, resume bool) []string {
		if resume {
			return []string{"run", "--continue", prompt}
		}
		return []string{"run", prompt}
	},
}

// OpenClaw: tests/openclaw's, on its Node.js 24; a provider of the
// openai-completions kind with the model's baseUrl in
// ~/.openclaw/openclaw.json. agent --local runs a turn of the main agent's
// session, and the next one continues it.
var openclaw = Agent{
	Name:    "openclaw-2026.9.6",
	Store:   "openclaw",
	Program: nodeProgram(filepath.Join(openclawModules, "openclaw/openclaw.mjs")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read", Args: map[string]any{"path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".openclaw", "openclaw.json"), map[string]any{
			"models": map[string]any{"providers": map[string]any{"scripted": map[string]any{
				"baseUrl": r.Model + "/v1", "apiKey": "scripted", "api": "openai-completions",
				"models": []any{map[string]any{"id": "scripted", "name": "Scripted", "reasoning": true, "input": []string{"text"},
					"cost":          map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
					"contextWindow": 128000, "maxTokens": 4000}},
			}}},
			"agents": map[string]any{"defaults": map[string]any{"model": map[string]any{"primary": "scripted/scripted"}}},
		})
		return nil
	},
	Args: func(prompt string, resume bool) []string {
		return []string{"agent", "--local", "--agent", "main", "--message", prompt}
	},
}

// Qwen Code: a fork of Gemini CLI, on Node.js 24; its OpenAI-compatible
// sign-in (--auth-type openai) with the model's base URL (Chat
// Completions; reasoning_content is its thinking). --yolo lets it read
// without asking; --continue resumes the directory's latest session.
var qwenCode = Agent{
	Name:    "qwen-code-0.24.4",
	Store:   "qwen-code",
	Program: nodeProgram(filepath.Join(modules, "@qwen-code/qwen-code/cli-entry.js")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read_file", Args: map[string]any{"file_path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		return []string{"OPENAI_API_KEY=scripted", "OPENAI_BASE_URL=" + r.Model + "/v1", "OPENAI_MODEL=scripted"}
	},
	Args: func(prompt string, resume bool) []string {
		args := []string{"--auth-type", "openai", "--yolo", "-m", "scripted"}
		if resume {
			args = append(args, "--continue")
		}
		return append(args, prompt)
	},
}

// Pi: its CLI on Node.js 24; a provider of the openai-completions kind with
// the model's baseUrl in ~/.pi/agent/models.json (Chat Completions;
// reasoning_content is its thinking); --offline keeps it from fetching at
// start; -p runs one turn, --continue resumes the directory's latest
// session.
var pi = Agent{
	Name:    "pi-0.73.1",
	Store:   "pi",
	Program: nodeProgram(filepath.Join(modules, "@mariozechner/pi-coding-agent/dist/cli.js")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read", Args: map[string]any{"path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".pi", "agent", "models.json"), map[string]any{
			"providers": map[string]any{"scripted": map[string]any{
				"baseUrl": r.Model + "/v1", "api": "openai-completions", "apiKey": "scripted",
				"models": []any{map[string]any{"id": "scripted", "reasoning": true}},
			}},
		})
		return nil
	},
	Args: func(prompt string, resume bool) []string {
		args := []string{"--offline", "--provider", "scripted", "--model", "scripted", "-p"}
		if resume {
			args = append(args, "--continue")
		}
		return append(args, prompt)
	},
}

// GitHub Copilot CLI: the native program of its Linux x64 package (what its
// Node loader runs); its offline mode (COPILOT_OFFLINE) with a custom model
// provider (BYOK: COPILOT_PROVIDER_BASE_URL, Chat Completions) needs no
// GitHub sign-in. --allow-all-tools lets it read without asking; -p runs
// one turn, --continue resumes the latest session.
var copilot = Agent{
	Name:    "copilot-1.0.102",
	Store:   "copilot",
	Program: nativeProgram("@github/copilot", "@github/copilot-linux-x64", "1.0.102", "copilot"),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "view", Args: map[string]any{"path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		return []string{"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "COPILOT_PROVIDER_BASE_URL=" + r.Model + "/v1",
			"COPILOT_PROVIDER_API_KEY=scripted", "COPILOT_MODEL=scripted"}
	},
	Args: func(prompt string, resume bool) []string {
		args := []string{"--allow-all-tools", "--disable-client-telemetry"}
		if resume {
			args = append(args, "--continue")
		}
		return append(args, "-p", prompt)
	},
}

// Kilo Code: the native program of its Linux x64 package (package.json
// says why it is pinned alone), a fork of OpenCode configured as OpenCode
// is, in ~/.config/kilo/kilo.json, with the model as an OpenAI-compatible
// provider. The KILO_DISABLE_* variables keep it from fetching models,
// plugins, updates and language servers and from sending the session to
// Kilo's cloud; --auto lets it read without asking; run --continue
// resumes.
var kiloCode = Agent{
	Name:    "kilo-code-7.7.9",
	Store:   "kilo-code",
	Program: nativeProgram("", "@kilocode/cli-linux-x64", "7.7.9", "bin/kilo"),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "read", Args: map[string]any{"filePath": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".config", "kilo", "kilo.json"), map[string]any{
			"provider": map[string]any{"scripted": map[string]any{
				"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
				"options": map[string]any{"baseURL": r.Model + "/v1", "apiKey": "scripted"},
				"models":  map[string]any{"scripted": map[string]any{"name": "Scripted", "reasoning": true, "tool_call": true}},
			}},
			"model": "scripted/scripted", "autoupdate": false, "share": "disabled",
		})
		return []string{"KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_DEFAULT_PLUGINS=1", "KILO_DISABLE_AUTOUPDATE=1",
			"KILO_DISABLE_LSP_DOWNLOAD=1", "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_SHARE=1"}
	},
	Args: func(prompt string, resume bool) []string {
		if resume {
			return []string{"run", "--auto", "--continue", prompt}
		}
		return []string{"run", "--auto", prompt}
	},
}

// Continue: its CLI, cn, on Node.js 24, with a configuration file (in the
// project directory, which --config names relative to it) whose one model
// is an OpenAI-compatible provider with the model's apiBase (Chat
// Completions); no sign-in to Continue's hub. --auto lets it read without
// asking; -p runs one turn, --resume resumes the latest session. It keeps
// none of the model's thinking (docs/agents/continue.md AN3).
var continueCLI = Agent{
	Name:    "continue-1.5.47",
	Store:   "continue",
	Program: nodeProgram(filepath.Join(modules, "@continuedev/cli/dist/cn.js")),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "Read", Args: map[string]any{"filepath": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeFile(t, filepath.Join(r.Project, continueConfig), `name: scripted
version: 0.0.1
schema: v1
models:
  - name: scripted
    provider: openai
    model: scripted
    apiBase: `+r.Model+`/v1
    apiKey: scripted
    roles: [chat]
`)
		return []string{"CONTINUE_METRICS_ENABLED=0", "CONTINUE_CLI_DISABLE_COMMIT_SIGNATURE=1"}
	},
	Args: func(prompt string, resume bool) []string {
		args := []string{"--config", continueConfig, "--auto", "-p"}
		if resume {
			args = append(args, "--resume")
		}
		return append(args, prompt)
	},
	KeepsNoThinking: true,
}

// continueConfig is Continue's configuration file, in the project
// directory.
const continueConfig = "continue-scripted.yaml"

// Factory Droid: the native program of its Linux x64 package (@factory/cli
// 0.225.1's own Linux x64 package is not on the registry; 0.225.2's
// program is pinned alone), with the model as a custom model (BYOK) of
// the generic Chat Completions kind in ~/.factory/settings.json; no
// sign-in. FACTORY_API_BASE_URL points Factory's own API at the scripted
// model's server, which answers it 404: a resume asks that API for the
// session and goes on when it is unknown there. exec runs one turn;
// exec -s resumes the session the first turn wrote, by its id.
var factoryDroid = Agent{
	Name:    "factory-droid-0.225.2",
	Store:   "factory-droid",
	Program: nativeProgram("", "@factory/cli-linux-x64", "0.225.2", "bin/droid"),
	Read: func(path string) scriptmodel.Call {
		return scriptmodel.Call{Name: "Read", Args: map[string]any{"file_path": path}}
	},
	Setup: func(t *testing.T, r *Run) []string {
		writeJSON(t, filepath.Join(r.Home, ".factory", "settings.json"), map[string]any{
			"customModels": []any{map[string]any{"model": "scripted", "displayName": "Scripted", "baseUrl": r.Model + "/v1",
				"apiKey": "scripted", "provider": "generic-chat-completion-api", "maxOutputTokens": 4000}},
		})
		return []string{"FACTORY_API_BASE_URL=" + r.Model, "FACTORY_DROID_AUTO_UPDATE_ENABLED=false"}
	},
	Args: func(prompt string, resume bool) []string {
		return []string{"exec", "-m", factoryModel, prompt}
	},
	ResumeArgs: func(t *testing.T, r *Run, prompt string) []string {
		files, _ := filepath.Glob(filepath.Join(r.Home, ".factory", "sessions", "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("Factory Droid wrote %d session files after the first turn, want 1: %v", len(files), files)
		}
		return []string{"exec", "-m", factoryModel, "-s", strings.TrimSuffix(filepath.Base(files[0]), ".jsonl"), prompt}
	},
}

// factoryModel is the id Factory Droid gives the first custom model.
const factoryModel = "custom:Scripted-0"
