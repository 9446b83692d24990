// Counters for `GET /metrics`, in Prometheus' text format.
import LocalModels
import Synchronization

/// What the server has done since it started.
final class ServerMetrics: Sendable {
    private struct State {
        var requests: [String: Int] = [:]   // "endpoint status" -> count
        var promptTokens = 0
        var completionTokens = 0
        var generationSeconds = 0.0
        var lastTokensPerSecond = 0.0
        var cancelled = 0
    }
    private let state = Mutex(State())

    func request(_ endpoint: String, status: Int) {
        state.withLock { $0.requests["\(endpoint) \(status)", default: 0] += 1 }
    }

    /// A request whose client went away before its answer was complete.
    func cancelled() {
        state.withLock { $0.cancelled += 1 }
    }

    /// One finished generation: its token counts and seconds from start to last token.
    func generation(prompt: Int, completion: Int, seconds: Double) {
        state.withLock { s in
            s.promptTokens += prompt
            s.completionTokens += completion
            s.generationSeconds += seconds
            if seconds > 0 { s.lastTokensPerSecond = Double(completion) / seconds }
        }
    }

    /// The exposition text; `pool` gives the live gauges, `batching` what the model's batcher ran.
    func text(pool: SlotPool, contextSize: Int, batching: DecodeBatcher.Totals) -> String {
        let s = state.withLock { $0 }
        var out = "# HELP quanta_requests_total HTTP requests answered, by endpoint and status.\n# TYPE quanta_requests_total counter\n"
        for key in s.requests.keys.sorted() {
            let parts = key.split(separator: " ")
            out += "quanta_requests_total{endpoint=\"\(parts[0])\",status=\"\(parts[1])\"} \(s.requests[key]!)\n"
        }
        out += "# HELP quanta_requests_cancelled_total Requests whose client disconnected before the answer was complete.\n"
        out += "# TYPE quanta_requests_cancelled_total counter\nquanta_requests_cancelled_total \(s.cancelled)\n"
        out += "# HELP quanta_prompt_tokens_total Prompt tokens of requests that ran (cancelled ones too).\n# TYPE quanta_prompt_tokens_total counter\n"
        out += "quanta_prompt_tokens_total \(s.promptTokens)\n"
        out += "# HELP quanta_completion_tokens_total Tokens generated (cancelled requests' too).\n# TYPE quanta_completion_tokens_total counter\n"
        out += "quanta_completion_tokens_total \(s.completionTokens)\n"
        out += "# HELP quanta_generation_seconds_total Seconds slots spent generating.\n# TYPE quanta_generation_seconds_total counter\n"
        out += "quanta_generation_seconds_total \(s.generationSeconds)\n"
        out += "# HELP quanta_tokens_per_second Generated tokens per second of the last finished request.\n# TYPE quanta_tokens_per_second gauge\n"
        out += "quanta_tokens_per_second \(s.lastTokensPerSecond)\n"
        out += "# HELP quanta_queue_depth Requests waiting for a slot.\n# TYPE quanta_queue_depth gauge\n"
        out += "quanta_queue_depth \(pool.queueDepth)\n"
        out += "# HELP quanta_slots_busy Slots running a request.\n# TYPE quanta_slots_busy gauge\n"
        out += "quanta_slots_busy \(pool.busy)\n"
        out += "# HELP quanta_decode_steps_total Batched decode steps (one forward pass each, one row per sequence decoding).\n"
        out += "# TYPE quanta_decode_steps_total counter\nquanta_decode_steps_total \(batching.steps)\n"
        out += "# HELP quanta_decode_step_rows Rows (sequences) per decode step: _sum is every token decoded, _count the steps.\n"
        out += "# TYPE quanta_decode_step_rows summary\nquanta_decode_step_rows_sum \(batching.rows)\nquanta_decode_step_rows_count \(batching.steps)\n"
        out += "# HELP quanta_decode_step_rows_max The most rows one decode step has held.\n# TYPE quanta_decode_step_rows_max gauge\n"
        out += "quanta_decode_step_rows_max \(batching.largest)\n"
        out += "# HELP quanta_prefill_batches_total Prompt chunks prefilled (each in one batched forward pass).\n# TYPE quanta_prefill_batches_total counter\n"
        out += "quanta_prefill_batches_total \(batching.prefillBatches)\n"
        out += "# HELP quanta_prefill_tokens_total Prompt tokens prefilled (those a slot's cache already held are not).\n"
        out += "# TYPE quanta_prefill_tokens_total counter\nquanta_prefill_tokens_total \(batching.prefillTokens)\n"
        out += "# HELP quanta_kv_cache_usage_ratio Share of each slot's context window its KV cache holds.\n# TYPE quanta_kv_cache_usage_ratio gauge\n"
        for slot in pool.slots {
            out += "quanta_kv_cache_usage_ratio{slot=\"\(slot.index)\"} \(Double(slot.cachedTokens.load(ordering: .relaxed)) / Double(max(1, contextSize)))\n"
        }
        return out
    }
}
