import CommandLineSpec
import GGUF
import JSON

private let jsonOption = OptionSpec(["--json"], "print JSON instead of text")

let inspectSpec = CommandSpec(name: "inspect",
                              summary: "File type, metadata, hyper-parameters, the tensor table and totals of a GGUF file.",
                              options: [jsonOption], positionals: ["PATH"])

/// `quanta inspect PATH [--json]`: header, hyper-parameters, all metadata (long arrays
/// summarised), the tensor table and totals.
func runInspect(_ argv: [String]) -> Int32 {
    let args: ParsedArguments
    do throws(UsageError) {
        guard let parsed = try parse(inspectSpec, argv) else { return 0 }
        args = parsed
    } catch {
        return fail(error, inspectSpec)
    }
    let path = args.positional[0]
    let file: GGUFFile
    do { file = try GGUFFile(path: path) } catch { return fail(UsageError.load(path, error).message) }
    let json = args.has(jsonOption)
    print(json ? inspectJSON(file, path: path) : inspectText(file, path: path), terminator: json ? "\n" : "")
    return 0
}

private struct Totals {
    var parameters = 0
    var bytes = 0
    var bitsPerWeight: Double { parameters == 0 ? 0 : Double(bytes * 8) / Double(parameters) }
    init(_ file: GGUFFile) {
        for t in file.tensors { parameters += t.elementCount; bytes += t.byteCount }
    }
}

/// Arrays longer than this are printed as type and length only.
private let arraySummaryThreshold = 16

private func render(_ value: GGUFValue) -> String {
    switch value {
    case let .string(s): return quoted(s)
    case let .array(a): return render(a)
    case let .bool(b): return b ? "true" : "false"
    case let .float32(f): return "\(f)"
    case let .float64(f): return "\(f)"
    default: return "\(value.intValue ?? 0)"
    }
}

private func render(_ array: GGUFArray) -> String {
    if array.count > arraySummaryThreshold { return "[\(array.elementType) × \(array.count)]" }
    switch array {
    case let .string(a): return "[" + a.map(quoted).joined(separator: ", ") + "]"
    case let .float32(a): return "\(a)"
    case let .float64(a): return "\(a)"
    case let .bool(a): return "\(a)"
    case let .array(a): return "[" + a.map(render).joined(separator: ", ") + "]"
    default: return "\(array.intValues ?? [])"
    }
}

/// A JSON string literal (also used for human output, so control characters stay visible).
func quoted(_ s: String) -> String {
    JSONString.quoted(s)
}

/// `general.file_type` by llama.cpp's name (`Q4_K_M`), or its number when llama.cpp has no name.
private func fileType(_ file: GGUFFile) -> String? {
    guard let value = file.metadata["general.file_type"]?.intValue else { return nil }
    return fileTypeName(value) ?? "\(value)"
}

private func hyperParameters(_ file: GGUFFile) -> [(String, String)] {
    guard let arch = file.architecture else { return [] }
    let keys = ["context_length", "embedding_length", "block_count", "feed_forward_length",
                "attention.head_count", "attention.head_count_kv", "attention.key_length",
                "attention.value_length", "rope.freq_base", "attention.sliding_window", "vocab_size"]
    return keys.compactMap { k in file.metadata["\(arch).\(k)"].map { (k, render($0)) } }
}

private func inspectText(_ file: GGUFFile, path: String) -> String {
    let totals = Totals(file)
    var out = "file: \(path)\n"
    out += "gguf version: \(file.version), alignment: \(file.alignment), data offset: \(file.dataOffset)\n"
    out += "architecture: \(file.architecture ?? "(none)")\n"
    if let name = try? file.string("general.name") { out += "name: \(name)\n" }
    if let type = fileType(file) { out += "file type: \(type)\n" }
    for (k, v) in hyperParameters(file) { out += "  \(k): \(v)\n" }
    out += "\nmetadata (\(file.metadataKeys.count) keys):\n"
    for key in file.metadataKeys {
        let name = key == "general.file_type" ? file.metadata[key]?.intValue.flatMap(fileTypeName).map { " (\($0))" } ?? "" : ""
        out += "  \(key) = \(render(file.metadata[key]!))\(name)\n"
    }
    out += "\ntensors (\(file.tensors.count)):\n"
    let nameWidth = min(48, file.tensors.map(\.name.count).max() ?? 4)
    out += "  " + pad("name", nameWidth) + "  " + pad("type", 6) + "  " + pad("shape", 20) + "  " + pad("offset", 12) + "  bytes\n"
    for t in file.tensors {
        let shape = "[" + t.shape.map(String.init).joined(separator: ", ") + "]"
        out += "  " + pad(t.name, nameWidth) + "  " + pad(t.type.description, 6) + "  " + pad(shape, 20)
            + "  " + pad(String(t.offset), 12) + "  \(t.byteCount)\n"
    }
    let bpw = (totals.bitsPerWeight * 1000).rounded() / 1000
    out += "\ntotals: \(file.tensors.count) tensors, \(totals.parameters) parameters, \(totals.bytes) bytes, \(bpw) bits per weight\n"
    return out
}

private func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
}

/// A metadata value as JSON: numbers exactly as stored (64-bit integers included), non-finite
/// floats as null, arrays longer than `arraySummaryThreshold` as their type and length.
private func jsonValue(_ value: GGUFValue) -> JSONValue {
    switch value {
    case let .array(a) where a.count > arraySummaryThreshold:
        return .object([("type", .string("array")), ("element_type", .string("\(a.elementType)")), ("length", .integer(a.count))])
    case let .array(a): return jsonArray(a)
    case let .string(s): return .string(s)
    case let .bool(b): return .bool(b)
    case let .float32(f): return .number(float: f)
    case let .float64(f): return .number(f)
    case let .uint64(v): return exactInteger(v)
    case let .int64(v): return exactInteger(v)
    default: return .integer(value.intValue ?? 0)
    }
}

private func jsonArray(_ array: GGUFArray) -> JSONValue {
    switch array {
    case let .string(a): return .array(a.map(JSONValue.string))
    case let .bool(a): return .array(a.map(JSONValue.bool))
    case let .float32(a): return .array(a.map { JSONValue.number(float: $0) })
    case let .float64(a): return .array(a.map { JSONValue.number($0) })
    case let .uint64(a): return .array(a.map(exactInteger))
    case let .array(a): return .array(a.map(jsonArray))
    default: return .array((array.intValues ?? []).map(JSONValue.integer))
    }
}

/// An integer of any width written with all its digits.
private func exactInteger(_ value: some BinaryInteger) -> JSONValue {
    .number(Double(value), text: "\(value)")
}

private func inspectJSON(_ file: GGUFFile, path: String) -> String {
    let totals = Totals(file)
    let tensors = file.tensors.map { t -> JSONValue in
        .object([("name", .string(t.name)), ("type", .string("\(t.type)")), ("shape", .array(t.shape.map(JSONValue.integer))),
                 ("offset", .integer(t.offset)), ("bytes", .integer(t.byteCount))])
    }
    return JSONValue.object([
        ("file", .string(path)), ("version", .integer(Int(file.version))), ("alignment", .integer(file.alignment)),
        ("architecture", file.architecture.map(JSONValue.string) ?? .null), ("file_type", fileType(file).map(JSONValue.string) ?? .null),
        ("metadata", .object(file.metadataKeys.map { ($0, jsonValue(file.metadata[$0]!)) })),
        ("tensors", .array(tensors)), ("tensor_count", .integer(file.tensors.count)), ("parameters", .integer(totals.parameters)),
        ("bytes", .integer(totals.bytes)), ("bits_per_weight", .number(totals.bitsPerWeight)),
    ]).jsonText
}
