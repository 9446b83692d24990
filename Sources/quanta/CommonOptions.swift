import CommandLineSpec

/// The options several commands share, spelled as llama.cpp spells them (Quanta's older
/// spellings after).
enum CommonOptions {
    static let model = OptionSpec(["-m", "--model"], value: "PATH", "GGUF model file")
    static let contextSize = OptionSpec(["-c", "--ctx-size", "--ctx"], value: "N", "context window in tokens (default 4096, at most the trained length)")
    static let threads = OptionSpec(["-t", "--threads"], value: "N", "threads (default: every online core)")
    static let weights = OptionSpec(["--weights"], value: "FORMAT", "native|f32|mxint8|mxfp8_e4m3|mxfp8_e5m2|mxfp4 (default native)")
    static let kvCache = OptionSpec(["-ctk", "--cache-type-k", "-ctv", "--cache-type-v", "--kv"], value: "TYPE",
                                    "KV cache type: f16|q8_0|mxfp8_e4m3 (default f16; keys and values share it)")
    static let prompt = OptionSpec(["-p", "--prompt"], value: "TEXT", "the prompt")
    static let promptFile = OptionSpec(["-f", "--file"], value: "PATH", "read the prompt from a file")
    static let system = OptionSpec(["-sys", "--system-prompt", "--system"], value: "TEXT", "system instructions")
    static let predict = OptionSpec(["-n", "--n-predict"], value: "N", "tokens to generate (-1: until the context is full)")
    static let temperature = OptionSpec(["--temp"], value: "T", "temperature (0 = greedy)")
    static let topK = OptionSpec(["--top-k"], value: "K", "top-k (0 = off; default 40)")
    static let topP = OptionSpec(["--top-p"], value: "P", "top-p (1 = off; default 0.95)")
    static let minP = OptionSpec(["--min-p"], value: "P", "min-p (0 = off; default 0.05)")
    static let repeatPenalty = OptionSpec(["--repeat-penalty"], value: "X", "repetition penalty (1 = off; default 1)")
    static let repeatLastN = OptionSpec(["--repeat-last-n"], value: "N", "tokens the repetition penalty looks back over (default 64)")
    static let seed = OptionSpec(["-s", "--seed"], value: "N", "sampling seed (-1: random; default -1)")

    /// Options of every command that runs a model.
    static let modelRunning = [model, contextSize, threads, weights, kvCache]
    /// Sampling options (`generate` and `chat` take the same ones).
    static let sampling = [temperature, topK, topP, minP, repeatPenalty, repeatLastN, seed]
}
