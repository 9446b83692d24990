#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import Dispatch
import Foundation
import Quanta
import Server
import Synchronization

private enum ServeOptions {
    static let host = OptionSpec(["--host"], value: "ADDR", "IPv4 or IPv6 address to listen on (default 127.0.0.1: this machine only)")
    static let port = OptionSpec(["--port"], value: "N", "TCP port (default 8080; 0 = any free port, printed at start)")
    static let slots = OptionSpec(["-np", "--parallel"], value: "N", "requests that run at once, each with its own KV cache of -c tokens (default 1)")
    static let queue = OptionSpec(["--queue"], value: "N", "requests that may wait for a slot; beyond them: 503 (default 16)")
    static let apiKey = OptionSpec(["--api-key"], value: "KEY", "require Authorization: Bearer KEY on every endpoint but /health")
    static let alias = OptionSpec(["-a", "--alias"], value: "NAME", "the model's name in the API (default: the file name without .gguf)")
    static let drain = OptionSpec(["--shutdown-timeout"], value: "S",
                                  "on SIGTERM, seconds in-flight requests get to finish before they are cut (default 30)")
}

let serveSpec = CommandSpec(
    name: "serve",
    summary: "Serve the model over HTTP with OpenAI's API (/v1/chat/completions, /v1/completions, /v1/models, /health, /metrics).",
    options: [ServeOptions.host, ServeOptions.port, ServeOptions.slots, ServeOptions.queue, ServeOptions.apiKey, ServeOptions.alias,
              ServeOptions.drain]
        + CommonOptions.modelRunning(contextSize: 4096) + CommonOptions.sampling(temperature: 0.8, seed: -1)
        + IgnoredOptions.modelRunning + [IgnoredOptions.jinja],
    notes: "SIGTERM or Ctrl-C stops accepting connections, lets the requests in flight finish, and exits 0.")

/// `quanta serve`: one model behind the OpenAI-compatible endpoints (docs/server.md).
func runServe(_ argv: [String]) async -> Int32 {
    let setup: ModelSetup, settings: OpenAIServer.Settings, host: String, port: Int, drainSeconds: Int
    do throws(UsageError) {
        guard let args = try parse(serveSpec, argv) else { return 0 }
        host = args.string(ServeOptions.host) ?? "127.0.0.1"
        port = try args.int(ServeOptions.port, default: 8080, range: 0...65535)
        let slots = try args.int(ServeOptions.slots, default: 1, range: 1...64)
        let queue = try args.int(ServeOptions.queue, default: 16, range: 0...100_000)
        drainSeconds = try args.int(ServeOptions.drain, default: 30, range: 0...86_400)
        var sampling = try samplingDefaults(args, temperature: 0.8)
        sampling.seed = try seedOption(args, default: -1)
        guard let path = args.string(CommonOptions.model) else { throw UsageError("-m/--model PATH is required") }
        var s = OpenAIServer.Settings(modelID: args.string(ServeOptions.alias)
            ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
        s.slots = slots
        s.queueLimit = queue
        s.apiKey = args.string(ServeOptions.apiKey)
        if s.apiKey?.isEmpty == true { throw UsageError("--api-key must not be empty") }
        settings = s
        setup = try await ModelSetup(args, defaultContext: 4096, sampling: sampling)
    } catch {
        return fail(error, serveSpec)
    }
    let server: OpenAIServer, daemon: HTTPDaemon
    do {
        server = try OpenAIServer(model: setup.model, settings: settings)
        daemon = try HTTPDaemon(host: host, port: port, handler: server)
    } catch {
        return fail("\(error)")
    }
    let shown = host.contains(":") ? "[\(host)]" : host
    printError("quanta serve: listening on http://\(shown):\(daemon.port) (model \(settings.modelID), \(settings.slots) slot(s) of "
        + "\(setup.model.contextSize) tokens)\n")

    let signal = await waitForTermination()
    printError("quanta serve: \(signal), finishing \(server.inFlight) request(s) in flight\n")
    daemon.stopAccepting()
    let deadline = monotonicSeconds() + Double(drainSeconds)
    while (server.inFlight > 0 || daemon.openRequests > 0) && monotonicSeconds() < deadline {
        try? await Task.sleep(for: .milliseconds(20))
    }
    daemon.stop()
    printError("quanta serve: stopped\n")
    return 0
}

/// Waits for SIGTERM or SIGINT and names the one that came.
private func waitForTermination() async -> String {
    await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
        let fired = Mutex(false)
        var sources: [DispatchSourceSignal] = []
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)   // delivered to the dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = fired.withLock { f -> Bool in defer { f = true }; return !f }
                if first { continuation.resume(returning: name) }
            }
            source.resume()
            sources.append(source)
        }
        signalSources = sources
    }
}

/// Keeps the signal sources alive for the life of the process.
nonisolated(unsafe) private var signalSources: [DispatchSourceSignal] = []
