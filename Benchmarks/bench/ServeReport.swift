// `bench serve`'s figures: a round's answers, a table row pooled over repetitions, the table.

/// One round of concurrent clients: every request's answer and the round's wall time, seconds.
struct ServeRound {
    let answers: [StreamedAnswer]
    let seconds: Double

    var failures: Int { answers.filter { $0.failure != nil }.count }
    /// Answer tokens per second of wall time, all clients together (usage counts of the answers that succeeded).
    var aggregateRate: Double { Double(answers.filter { $0.failure == nil }.reduce(0) { $0 + ($1.completionTokens ?? 0) }) / seconds }
}

/// One table row: a server at one client count, pooled over repetitions.
struct ServeRow {
    var answers: [StreamedAnswer] = []
    var aggregates: [Double] = []

    mutating func add(_ round: ServeRound) {
        answers += round.answers
        aggregates.append(round.aggregateRate)
    }

    private var succeeded: [StreamedAnswer] { answers.filter { $0.failure == nil } }
    var failures: Int { answers.count - succeeded.count }
    /// Times to first token, milliseconds, sorted.
    var ttftMilliseconds: [Double] { succeeded.compactMap(\.timeToFirstToken).map { $0 * 1000 }.sorted() }
    var streamRate: (mean: Double, stddev: Double) {
        let rates = succeeded.compactMap(\.decodeRate)
        return rates.isEmpty ? (0, 0) : meanAndStddev(rates)
    }
    var aggregate: (mean: Double, stddev: Double) { meanAndStddev(aggregates) }
    var completionTokens: Int { succeeded.reduce(0) { $0 + ($1.completionTokens ?? 0) } }
    var contentChunks: Int { succeeded.reduce(0) { $0 + $1.contentChunks } }
    var meanAnswerTokens: Double { succeeded.isEmpty ? 0 : Double(completionTokens) / Double(succeeded.count) }

    func json(model: String, server: ServerKind, slots: Int, clients: Int, ratio: Double?) -> String {
        var fields = [
            "\"model\": \"\(model)\"", "\"server\": \"\(server.rawValue)\"", "\"np\": \(slots)", "\"clients\": \(clients)",
            "\"requests\": \(answers.count)", "\"failures\": \(failures)", "\"completion_tokens\": \(completionTokens)",
            "\"content_chunks\": \(contentChunks)", "\"prompt_tokens\": \(succeeded.reduce(0) { $0 + ($1.promptTokens ?? 0) })",
            "\"ttft_p50_ms\": \(percentile(ttftMilliseconds, 50))", "\"ttft_p99_ms\": \(percentile(ttftMilliseconds, 99))",
            "\"stream_tok_s\": \(streamRate.mean)", "\"stream_tok_s_stddev\": \(streamRate.stddev)",
            "\"aggregate_tok_s\": \(aggregate.mean)", "\"aggregate_tok_s_stddev\": \(aggregate.stddev)",
        ]
        if let ratio { fields.append("\"ratio\": \(ratio)") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

/// Nearest-rank percentile of sorted `xs` (0 when empty).
func percentile(_ xs: [Double], _ p: Double) -> Double {
    guard !xs.isEmpty else { return 0 }
    let rank = Int((p / 100 * Double(xs.count)).rounded(.up))
    return xs[min(max(rank, 1), xs.count) - 1]
}

func printServeTableHeader() {
    print("| model | server | np | clients | requests | tokens/answer | TTFT p50 ms | TTFT p99 ms | t/s per stream | aggregate t/s | aggregate vs llama-server |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
}

func printServeRow(_ row: ServeRow, model: String, server: ServerKind, slots: Int, clients: Int, ratio: Double?) {
    let failed = row.failures > 0 ? " (\(row.failures) failed)" : ""
    print("| \(model) | \(server.rawValue) | \(slots) | \(clients) | \(row.answers.count)\(failed) | \(fixed(row.meanAnswerTokens, 1)) | "
          + "\(fixed(percentile(row.ttftMilliseconds, 50), 1)) | \(fixed(percentile(row.ttftMilliseconds, 99), 1)) | "
          + "\(fixed(row.streamRate.mean)) ± \(fixed(row.streamRate.stddev)) | \(fixed(row.aggregate.mean)) ± \(fixed(row.aggregate.stddev)) | "
          + (ratio.map { "\(fixed($0))×" } ?? "–") + " |")
}
