import CommandLineSpec

/// The options several commands share, spelled as llama.cpp spells them (Quanta's older
/// spellings after). Where commands differ in a default, the option states the command's own,
/// so each default is said once, in its option's line.
enum CommonOptions {
    static let model = OptionSpec(["-m", "--model"], value: "PATH", "GGUF model file")
    static func contextSize(default value: Int) -> OptionSpec {
        OptionSpec(["-c", "--ctx-size", "--ctx"], value: "N", "context window in tokens (default \(value); 0 = the model's trained length)")
    }
    static let threads = OptionSpec(["-t", "--threads"], value: "N", "threads (default: every online core)")
    static let weights = OptionSpec(["--weights"], value: "FORMAT", "native|f32|f16|bf16|mxint8|mxfp8_e4m3|mxfp8_e5m2|mxfp4 (default native)")
    static let kvCache = OptionSpec(["-ctk", "--cache-type-k", "-ctv", "--cache-type-v", "--kv"], value: "TYPE",
                                    "KV cache type: f16|q8_0|mxfp8_e4m3 (default f16; keys and values share it)")
    static let prompt = OptionSpec(["-p", "--prompt"], value: "TEXT", "the prompt")
    static let promptFile = OptionSpec(["-f", "--file"], value: "PATH", "read the prompt from a file (one trailing newline dropped)")
    static let system = OptionSpec(["-sys", "--system-prompt", "--system"], value: "TEXT", "system instructions")
    static func predict(default value: Int) -> OptionSpec {
        OptionSpec(["-n", "--n-predict"], value: "N", "tokens to generate (default \(value); -1 = until the context is full)")
    }
    static func temperature(default value: Double) -> OptionSpec {
        OptionSpec(["--temp"], value: "T", value == 0 ? "temperature (default 0 = greedy)" : "temperature (default \(value); 0 = greedy)")
    }
    static let topK = OptionSpec(["--top-k"], value: "K", "top-k (default 40; 0 = off)")
    static let topP = OptionSpec(["--top-p"], value: "P", "top-p (default 0.95; 1 = off)")
    static let minP = OptionSpec(["--min-p"], value: "P", "min-p (default 0.05; 0 = off)")
    static let repeatPenalty = OptionSpec(["--repeat-penalty"], value: "X", "repetition penalty (default 1 = off)")
    static let repeatLastN = OptionSpec(["--repeat-last-n"], value: "N", "tokens the repetition penalty looks back over (default 64)")
    static func seed(default value: Int) -> OptionSpec {
        OptionSpec(["-s", "--seed"], value: "N", value == -1 ? "sampling seed (default -1 = random)" : "sampling seed (default \(value); -1 = random)")
    }

    /// Options of every command that runs a model.
    static func modelRunning(contextSize: Int) -> [OptionSpec] {
        [model, CommonOptions.contextSize(default: contextSize), threads, weights, kvCache]
    }
    /// Sampling options (`generate` and `chat` take the same ones, with their own temperature
    /// and seed defaults).
    static func sampling(temperature: Double, seed: Int) -> [OptionSpec] {
        [CommonOptions.temperature(default: temperature), topK, topP, minP, repeatPenalty, repeatLastN, CommonOptions.seed(default: seed)]
    }
}

/// llama.cpp options that change nothing here: accepted, with their values checked as
/// llama.cpp checks them, and a note saying why they are ignored.
enum IgnoredOptions {
    static let gpuLayers = OptionSpec.ignored(["-ngl", "--gpu-layers", "--n-gpu-layers"], value: "N", check: .integer(or: "auto", "all"),
                                              "Quanta runs on the CPU; there are no GPU layers")
    static let batchSize = OptionSpec.ignored(["-b", "--batch-size"], value: "N", check: .integer,
                                              "Quanta sizes its prefill batches itself")
    static let flashAttention = OptionSpec.ignored(["-fa", "--flash-attn"], value: "on|off|auto", check: .onOffAuto,
                                                   "Quanta's attention is always fused (tiled, online softmax)")
    static let color = OptionSpec.ignored(["-co", "--color"], value: "on|off|auto", check: .onOffAuto,
                                          "Quanta does not color its output")
    static let noConversation = OptionSpec.ignored(["-no-cnv", "--no-conversation"],
                                                   "generate never applies a chat template")
    static let jinja = OptionSpec.ignored(["--jinja"], "chat templates always run on Quanta's own Jinja engine")
    static let loadMode = OptionSpec.ignored(["-lm", "--load-mode"], value: "auto|none|mmap|mlock|mmap+mlock|dio", check: .loadMode,
                                             "Quanta loads one way: the weights are repacked into its own memory and the file is unmapped")

    /// What every model-running command accepts.
    static let modelRunning = [gpuLayers, batchSize, flashAttention, loadMode]
}
