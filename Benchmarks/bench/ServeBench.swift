// `bench serve`: `quanta serve` and llama.cpp's `llama-server` on the same model and slots, each
// driven by 1, 2, 4, 8... concurrent clients streaming chat completions; time to first token,
// per-stream and aggregate tokens/s, side by side.
import Foundation
import JSON
#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec

private let modelOption = OptionSpec(["-m", "--model"], value: "PATH", "a GGUF model; repeat for several (default \(defaultModelPath))",
                                     repeats: true)
private let clientsOption = OptionSpec(["--clients"], value: "N[,N...]", "concurrent clients, a round at each (default 1,2,4,8)")
private let slotsOption = OptionSpec(["-np", "--parallel"], value: "N", "slots of both servers (default 4)")
private let tokensOption = OptionSpec(["-n", "--n-gen"], value: "N", "max_tokens of every request (default 128)")
private let requestsOption = OptionSpec(["--requests"], value: "N", "requests each client sends one after another per round (default 2)")
private let repetitionsOption = OptionSpec(["-r", "--repetitions"], value: "N", "server starts per model and server, alternating (default 2)")
private let threadsOption = OptionSpec(["-t", "--threads"], value: "N", "threads of both servers (default: every online core)")
private let contextOption = OptionSpec(["-c", "--ctx-size"], value: "N", "context window per slot (default 2048)")
private let serversOption = OptionSpec(["--servers"], value: "LIST", "quanta, llama-server or both, comma-separated (default both when llama-server is found)")
private let quantaOption = OptionSpec(["--quanta"], value: "PATH", "the quanta executable (default: the one beside bench)")
private let llamaServerOption = OptionSpec(["--llama-server"], value: "PATH", "llama.cpp's llama-server (default $LLAMA_CPP_DIR/llama-server, then PATH)")
private let jsonOption = OptionSpec(["--json"], "one JSON object per row instead of the table")

let serveBenchSpec = CommandSpec(
    program: "bench", name: "serve",
    summary: "quanta serve beside llama-server: concurrent streamed chat completions, TTFT and tokens/s.",
    options: [modelOption, clientsOption, slotsOption, tokensOption, requestsOption, repetitionsOption, threadsOption, contextOption,
              serversOption, quantaOption, llamaServerOption, jsonOption],
    notes: """
    Each server runs alone (never both at once): per model, each repetition starts quanta serve, runs every client
    count, stops it, then does the same with llama-server. A round starts all clients together; each sends --requests
    streamed chat completions in turn (fixed prompts, temperature 0, max_tokens -n, usage asked with
    stream_options.include_usage), after one warm-up request per server start. Neither server is told to ignore the
    end of text (quanta serve has no ignore_eos), so the prompts ask for long answers and the table gives the mean
    answer length of each. TTFT is send to first answer text, p50/p99 (nearest rank) over a row's requests;
    t/s per stream is a request's tokens after the first over the time from its first to its last token, mean ± sd;
    aggregate t/s is a round's tokens over its wall time, mean ± sd over repetitions. The ratio is quanta's
    aggregate over llama-server's. llama-server gets -c np×ctx (its cache is shared by its slots), -fa on.
    """)

/// Fixed prompts that ask for long answers; client i's request j takes prompt (i + j·clients) mod count.
let servePrompts = [
    "Write a long story about a dragon who learns to bake bread.",
    "Explain in detail how a steam engine works.",
    "Describe a walk through a busy market in a large city.",
    "List the planets of the solar system and describe each one.",
    "Write a detailed recipe for vegetable soup, step by step.",
    "Explain how the internet carries a message from one computer to another.",
    "Tell the history of the bicycle.",
    "Describe the life cycle of a butterfly in detail.",
]

struct ServeBenchOptions {
    var models: [String]
    var clients: [Int]
    var slots: Int, tokens: Int, requests: Int, repetitions: Int, threads: Int, context: Int
    var servers: [(kind: ServerKind, executable: String)]
    var json: Bool

    init(_ args: ParsedArguments) throws(UsageError) {
        models = args.strings(modelOption)
        if models.isEmpty { models = [defaultModelPath] }
        clients = try args.ints(clientsOption, default: [1, 2, 4, 8], range: 1...256)
        slots = try args.int(slotsOption, default: 4, range: 1...256)
        tokens = try args.int(tokensOption, default: 128, range: 1...100_000)
        requests = try args.int(requestsOption, default: 2, range: 1...10_000)
        repetitions = try args.int(repetitionsOption, default: 2, range: 1...1000)
        threads = try args.int(threadsOption, default: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))), range: 1...4096)
        context = try args.int(contextOption, default: 2048, range: 64...1_000_000)
        json = args.has(jsonOption)
        let quanta = args.string(quantaOption) ?? besideThisProgram("quanta")
        let llama = args.string(llamaServerOption) ?? locateLlamaServer()
        var kinds: [ServerKind]
        if let list = args.string(serversOption) {
            kinds = []
            for name in list.split(separator: ",") {
                guard let kind = ServerKind(rawValue: String(name)) else {
                    throw UsageError("--servers: unknown server '\(name)' (quanta, llama-server)")
                }
                kinds.append(kind)
            }
        } else {
            kinds = llama == nil ? [.quanta] : [.quanta, .llamaServer]
            if llama == nil { printError("bench serve: note: llama-server not found (--llama-server, $LLAMA_CPP_DIR, PATH); quanta only\n") }
        }
        servers = []
        for kind in kinds {
            let path = kind == .quanta ? quanta : llama
            guard let path, FileManager.default.isExecutableFile(atPath: path) else {
                throw UsageError("\(kind.rawValue): no executable at \(path ?? "any known place") (see --\(kind == .quanta ? "quanta" : "llama-server"))")
            }
            servers.append((kind, path))
        }
    }
}

/// `NAME` in the directory this executable is in.
private func besideThisProgram(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name).path
}

/// `$LLAMA_CPP_DIR/llama-server` (or its `build/bin/`), else `llama-server` on PATH.
private func locateLlamaServer() -> String? {
    let env = ProcessInfo.processInfo.environment
    var candidates: [String] = []
    if let dir = env["LLAMA_CPP_DIR"] { candidates += ["\(dir)/llama-server", "\(dir)/build/bin/llama-server"] }
    candidates += (env["PATH"] ?? "").split(separator: ":").map { "\($0)/llama-server" }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

func runServeBench(_ args: [String]) -> Int32 {
    withArguments(serveBenchSpec, args) { (args) throws(UsageError) -> Int32 in runServeBench(try ServeBenchOptions(args)) }
}

func runServeBench(_ options: ServeBenchOptions) -> Int32 {
    if !options.json {
        print("CPU: \(cpuName()), \(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) online cores; servers on \(options.threads) threads, "
              + "-np \(options.slots), -c \(options.context) per slot, max_tokens \(options.tokens), \(options.requests) request(s) per client per round, "
              + "\(options.repetitions) repetition(s)")
        printServeTableHeader()
    }
    var failed = false
    for model in options.models {
        let name = URL(fileURLWithPath: model).lastPathComponent
        // rows[kind][clients] collects every repetition's rounds.
        var rows: [ServerKind: [Int: ServeRow]] = [:]
        for repetition in 1...options.repetitions {
            for (kind, executable) in options.servers {
                printError("bench serve: \(name) \(kind.rawValue) repetition \(repetition): starting\n")
                let server: ServerUnderTest
                do {
                    server = try ServerUnderTest(kind: kind, executable: executable, model: model, slots: options.slots,
                                                 context: options.context, threads: options.threads)
                } catch {
                    printError("bench serve: \(name): \(error)\n")
                    return 1
                }
                defer { server.stop() }
                let warmUp = streamChat(url: server.chatURL, body: chatBody(prompt: servePrompts[0], maxTokens: 8), timeout: 600)
                if let failure = warmUp.failure {
                    printError("bench serve: \(name) \(kind.rawValue): warm-up request failed: \(failure)\n")
                    return 1
                }
                for clients in options.clients {
                    printError("bench serve: \(name) \(kind.rawValue) \(clients) client(s)\n")
                    let round = runRound(url: server.chatURL, clients: clients, requests: options.requests, maxTokens: options.tokens)
                    rows[kind, default: [:]][clients, default: ServeRow()].add(round)
                    if let failure = round.answers.compactMap(\.failure).first {
                        printError("bench serve: \(name) \(kind.rawValue) \(clients) client(s): \(round.failures) request(s) failed, first: \(failure)\n")
                        failed = true
                    }
                }
            }
        }
        for clients in options.clients {
            let theirs = rows[.llamaServer]?[clients]
            for (kind, _) in options.servers {
                guard let row = rows[kind]?[clients] else { continue }
                let ratio = kind == .quanta ? theirs.map { row.aggregate.mean / $0.aggregate.mean } : nil
                if options.json {
                    print(row.json(model: name, server: kind, slots: options.slots, clients: clients, ratio: ratio))
                } else {
                    printServeRow(row, model: name, server: kind, slots: options.slots, clients: clients, ratio: ratio)
                }
            }
        }
    }
    return failed ? 1 : 0
}

/// The request every client sends: streamed, greedy, usage in the last chunk.
func chatBody(prompt: String, maxTokens: Int) -> Data {
    let body = JSONValue.object([
        ("messages", .array([.object([("role", .string("user")), ("content", .string(prompt))])])),
        ("max_tokens", .integer(maxTokens)), ("temperature", .integer(0)), ("stream", .bool(true)),
        ("stream_options", .object([("include_usage", .bool(true))])),
    ])
    return Data(body.jsonText.utf8)
}

/// One round: `clients` threads start together, each sending `requests` streamed requests in turn.
func runRound(url: URL, clients: Int, requests: Int, maxTokens: Int) -> ServeRound {
    final class Results: @unchecked Sendable {
        let lock = NSLock()
        var answers: [StreamedAnswer] = []
    }
    let results = Results(), group = DispatchGroup()
    let start = now()
    for client in 0..<clients {
        group.enter()
        Thread.detachNewThread {
            for request in 0..<requests {
                let prompt = servePrompts[(client + request * clients) % servePrompts.count]
                let answer = streamChat(url: url, body: chatBody(prompt: prompt, maxTokens: maxTokens), timeout: 600)
                results.lock.withLock { results.answers.append(answer) }
            }
            group.leave()
        }
    }
    group.wait()
    return ServeRound(answers: results.answers, seconds: now() - start)
}

/// `model name` from /proc/cpuinfo.
private func cpuName() -> String {
    let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
    return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
}
