// A day-hike planner written against Apple's Foundation Models 27 API the way Apple's
// documentation and sample code write one: @Generable types with guides, a tool with
// @Generable arguments, a dynamic profile driven by session properties, snapshot streaming of
// a partially generated plan, and an availability gate. The only change from the
// Apple-platform source is the import below.
import Foundation
import Observation
import Quanta  // was: import FoundationModels

// MARK: - Generated types

@Generable(description: "How demanding the hike is")
enum Difficulty: String, CaseIterable, Codable {
    case easy
    case moderate
    case strenuous
}

@Generable(description: "Something hikers pass on a leg of the trail")
enum Landmark {
    case summit(name: String, elevation: Int)
    case hut(name: String, beds: Int)
    case lake(String)
    case viewpoint
}

@Generable
struct Leg {
    @Guide(description: "The place where this leg of the hike ends")
    var destination: String

    @Guide(description: "Length of the leg in kilometers", .range(0.5...12.0))
    var distance: Double

    @Guide(description: "Walking time in minutes", .minimum(10), .maximum(240))
    var minutes: Int

    @Guide(description: "The most notable thing on this leg")
    var landmark: Landmark
}

@Generable(description: "A plan for a day hike")
struct HikePlan {
    @Guide(description: "A short, inviting name for the hike")
    var title: String

    @Guide(description: "The trail's code: two capital letters, a dash and three digits", /[A-Z]{2}-\d{3}/)
    var trailCode: String

    var difficulty: Difficulty

    @Guide(description: "When to set off, on a 24-hour clock", .pattern(/(0[5-9]|1[0-2]):[0-5]\d/))
    var startTime: String

    @Guide(description: "The legs of the hike, in order", .count(2...4))
    var legs: [Leg]

    @Guide(description: "Total climb in meters", .range(0...1800))
    var elevationGain: Int

    @Guide(.count(3))
    @Guide(description: "Things to pack")
    var packingList: [String]

    @Guide(description: "Tags for the hike, one lowercase word each", .maximumCount(3), .element(.pattern(/[a-z]+/)))
    var tags: [String]

    @Guide(description: "A safety note, only if the hike needs one")
    var safetyNote: String?
}

/// What the hiker asks for. Not generated: the app builds it from its form.
struct HikeRequest: Sendable {
    var region: String
    var mood: String
    var difficulty: Difficulty?
}

// MARK: - Trail conditions tool

/// Collects the tool's lookups so the app can show which regions it checked.
actor ConditionsLog {
    private(set) var lookups: [CheckTrailConditions.Arguments] = []

    func record(_ arguments: CheckTrailConditions.Arguments) {
        lookups.append(arguments)
    }
}

struct CheckTrailConditions: Tool {
    let name = "checkTrailConditions"
    let description = "Looks up the weather forecast and any trail closures for a hiking region."

    var log: ConditionsLog? = nil

    @Generable
    struct Arguments: Sendable {
        @Guide(description: "The hiking region, for example 'Dolomites' or 'Lake District'")
        var region: String

        @Guide(description: "How many days from today the hike is", .range(0...3))
        var daysFromToday: Int
    }

    func call(arguments: Arguments) async throws -> String {
        await log?.record(arguments)
        let region = arguments.region.trimmingCharacters(in: .whitespaces)
        guard !region.isEmpty else {
            return "No region was given. Plan a hike that suits changeable weather."
        }
        let forecasts = ["sunny and dry", "cloudy with light wind", "showers in the afternoon", "cold and clear"]
        let seed = region.lowercased().unicodeScalars.reduce(arguments.daysFromToday) { $0 + Int($1.value) }
        let forecast = forecasts[seed % forecasts.count]
        let closure = seed % 5 == 0 ? "The ridge path is closed for repairs." : "All trails are open."
        return "\(region), in \(arguments.daysFromToday) day(s): \(forecast). \(closure)"
    }
}

// MARK: - Session properties, instructions and profile

extension SessionPropertyValues {
    @SessionPropertyEntry var conditionChecks: Int = 0
    @SessionPropertyEntry var preferredDifficulty: Difficulty? = nil
}

struct TrailInstructions: DynamicInstructions {
    @SessionProperty(\.preferredDifficulty) var preferredDifficulty
    let log: ConditionsLog

    var body: some DynamicInstructions {
        Instructions {
            """
            You are a hiking guide who plans safe, realistic day hikes. \
            Before planning, call the checkTrailConditions tool for the region \
            and take its forecast into account.
            """
        }
        if let preferredDifficulty {
            Instructions("The hiker asked for a \(preferredDifficulty.rawValue) hike.")
        }
        CheckTrailConditions(log: log)
    }
}

struct TrailPlannerProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.conditionChecks) var conditionChecks
    let log: ConditionsLog

    var body: some DynamicProfile {
        Profile {
            TrailInstructions(log: log)
        }
        .model(SystemLanguageModel())
        // Check the conditions once, then answer: a required tool call needs an exit condition.
        .toolCallingMode(conditionChecks < 1 ? .required : .disallowed)
        .onToolCall { conditionChecks += 1 }
    }
}

// MARK: - The planner

@Observable
@MainActor
final class TrailPlanner {
    private(set) var plan: HikePlan?
    private(set) var partialPlan: HikePlan.PartiallyGenerated?
    private(set) var errorMessage: String?

    let conditionsLog = ConditionsLog()

    private let model = SystemLanguageModel.default

    /// Greedy, and short enough for an on-device model to answer quickly.
    static let defaultOptions = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 300)

    static let instructions = Instructions {
        "You are a hiking guide who plans safe, realistic day hikes."
        "Keep names and notes short."
    }

    /// Why the planner cannot run right now, or nil when the model is ready.
    var unavailableMessage: String? {
        switch model.availability {
        case .available:
            return nil
        case .unavailable(.deviceNotEligible):
            return "Hike planning isn't available on this device."
        case .unavailable(.appleIntelligenceNotEnabled):
            return "Turn on Apple Intelligence in Settings to plan hikes."
        case .unavailable(.modelNotReady):
            return "The model isn't ready yet. Try again shortly."
        case .unavailable:
            return "Hike planning is unavailable right now."
        }
    }

    /// Plans a hike in one request.
    func plan(_ request: HikeRequest, options: GenerationOptions = defaultOptions) async throws -> HikePlan {
        let session = LanguageModelSession(instructions: Self.instructions)
        let response = try await session.respond(to: prompt(for: request), generating: HikePlan.self, options: options)
        plan = response.content
        return response.content
    }

    /// Plans a hike, showing it as it is generated; returns the snapshots seen.
    func streamPlan(_ request: HikeRequest) async throws -> [HikePlan.PartiallyGenerated] {
        let session = LanguageModelSession(instructions: Self.instructions)
        let stream = session.streamResponse(generating: HikePlan.self, options: Self.defaultOptions) {
            prompt(for: request)
        }
        var snapshots: [HikePlan.PartiallyGenerated] = []
        for try await snapshot in stream {
            // Each snapshot is the whole plan so far: assign it, never append to it.
            partialPlan = snapshot.content
            snapshots.append(snapshot.content)
        }
        plan = try await stream.collect().content
        return snapshots
    }

    /// Checks the trail conditions with the tool, then plans a hike around them.
    func planAfterCheckingConditions(_ request: HikeRequest) async throws -> HikePlan {
        let session = LanguageModelSession(profile: TrailPlannerProfile(log: conditionsLog))
        session.properties.preferredDifficulty = request.difficulty
        let response = try await session.respond(
            to: prompt(for: request),
            generating: HikePlan.self,
            options: Self.defaultOptions
        )
        plan = response.content
        return response.content
    }

    /// Runs `work`, turning a failure into a message for the UI.
    func perform(_ work: () async throws -> Void) async {
        errorMessage = nil
        do {
            try await work()
        } catch {
            errorMessage = error.displayMessage
        }
    }

    private func prompt(for request: HikeRequest) -> Prompt {
        Prompt {
            "Plan a day hike in \(request.region)."
            "The hiker is looking for \(request.mood)."
            if let difficulty = request.difficulty {
                "Make it \(difficulty.rawValue)."
            }
        }
    }
}

extension Error {
    /// A short message describing the error, suitable for display in the UI.
    var displayMessage: String {
        if self is SystemLanguageModel.Error {
            return "The on-device model isn't available right now."
        }
        if let modelError = self as? LanguageModelError {
            switch modelError {
            case .timeout:
                return "This is taking longer than expected. Please try again."
            case .guardrailViolation, .refusal:
                return "The planner can't help with that. Try a different request."
            case .contextSizeExceeded:
                return "There's too much in this conversation. Start a new plan."
            case .unsupportedLanguageOrLocale:
                return "The planner doesn't support this language."
            default:
                break
            }
        }
        if self is GeneratedContent.ParsingError {
            return "The planner had trouble understanding the response. Please try again."
        }
        return "Something went wrong: \(localizedDescription)"
    }
}
