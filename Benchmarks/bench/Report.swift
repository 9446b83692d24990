import GGUF
import JSON

/// What the table says about a model file.
struct ModelInfo {
    let name: String, sizeMiB: Double, parameters: Int, type: String

    init(path: String, file: GGUFFile) {
        name = String(path.split(separator: "/").last ?? Substring(path))
        sizeMiB = Double(file.tensors.reduce(0) { $0 + $1.byteCount }) / 1_048_576
        parameters = file.tensors.reduce(0) { $0 + $1.elementCount }
        type = file.architecture ?? "?"
    }
}

func printTableHeader(compare: Bool) {
    var header = "| model | size | params | threads | test | t/s | roofline t/s (reached) |"
    var rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    if compare {
        header += " llama.cpp t/s | ratio |"
        rule += " ---: | ---: |"
    }
    print(header)
    print(rule)
}

/// `roofline`: the decode roofline in tokens/s (Roofline.swift), for tgN rows.
func printRow(_ m: Measurement, info: ModelInfo, llamaCpp: LlamaBench.Result?, compare: Bool, roofline: Double?) {
    var row = "| \(info.name) | \(fixed(info.sizeMiB)) MiB | \(fixed(Double(info.parameters) / 1e6)) M | \(m.threads) | \(m.test) | "
        + "\(fixed(m.mean)) ± \(fixed(m.stddev)) | "
        + (roofline.map { "\(fixed($0)) (\(fixed(100 * m.mean / $0, 0)) %) |" } ?? "– |")
    if compare {
        if let l = llamaCpp {
            row += " \(fixed(l.mean)) ± \(fixed(l.stddev)) | \(fixed(m.mean / l.mean))× |"
        } else {
            row += " – | – |"
        }
    }
    print(row)
}

/// One row as a JSON object on one line (`--json`).
func printJSON(_ m: Measurement, info: ModelInfo, loadSeconds: Double, llamaCpp: LlamaBench.Result?,
               roofline: (tokensPerSecond: Double, weightBytes: Int)?) {
    var fields: [(key: String, value: JSONValue)] = [
        ("model", .string(info.name)), ("test", .string(m.test)), ("threads", .integer(m.threads)),
        ("tok_s", .number(m.mean)), ("stddev", .number(m.stddev)), ("samples", .array(m.samples.map { JSONValue.number($0) })),
        ("peak_rss_mb", .number(peakRSSMiB())), ("load_s", .number(loadSeconds)),
    ]
    if let roofline {
        fields.append(("roofline_tok_s", .number(roofline.tokensPerSecond)))
        fields.append(("roofline_weight_bytes", .integer(roofline.weightBytes)))
    }
    if let l = llamaCpp {
        if let rss = l.peakRSSMiB { fields.append(("llama_cpp_peak_rss_mb", .number(rss))) }
        fields += [("llama_cpp_tok_s", .number(l.mean)), ("llama_cpp_stddev", .number(l.stddev)), ("ratio", .number(m.mean / l.mean))]
    }
    print(JSONValue.object(fields).jsonText)
}

/// `x` as a JSON number with `digits` decimals, as `fixed` writes it (null when not finite).
func jsonNumber(_ x: Double, _ digits: Int) -> JSONValue {
    x.isFinite ? .number(x, text: fixed(x, digits)) : .null
}
