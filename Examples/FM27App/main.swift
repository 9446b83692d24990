// Drives TrailPlanner from the command line: `fm27-example [N]` checks the system model's
// availability, runs N guided requests (default 10) over varied prompts, alternating greedy and
// seeded sampling, and checks each answer against the plan's guides itself. Then it exercises
// the tool (through the dynamic profile) and the stream once each.
//
// Output: one line per answer, a `tool:` and a `stream:` line, and `valid: K/N` for the N
// requests. Exit status 1 when the model is unavailable (one line on stderr) or when any answer,
// the tool check or the stream check is invalid.
import Foundation
import Quanta

let requestCount = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10
guard requestCount > 0 else {
    FileHandle.standardError.write(Data("usage: fm27-example [number of requests, default 10]\n".utf8))
    exit(2)
}

let planner = TrailPlanner()
if case .unavailable(let reason) = SystemLanguageModel.default.availability {
    let message = planner.unavailableMessage ?? "unavailable"
    FileHandle.standardError.write(Data("fm27-example: the system model is unavailable (\(reason)): \(message)\n".utf8))
    exit(1)
}

// MARK: - Checking a plan against its guides

/// The guides HikePlan declares, checked without the schema: each broken one is described.
func violations(of plan: HikePlan) -> [String] {
    var problems: [String] = []
    let code = Array(plan.trailCode.unicodeScalars)
    let codeOK = code.count == 6 && code[2] == "-"
        && code[0..<2].allSatisfy { ("A"..."Z").contains($0) }
        && code[3...].allSatisfy { ("0"..."9").contains($0) }
    if !codeOK { problems.append("trailCode \(plan.trailCode.debugDescription) is not AA-999") }

    let time = plan.startTime.split(separator: ":", omittingEmptySubsequences: false)
    if time.count != 2 || time[0].count != 2 || time[1].count != 2
        || !(5...12).contains(Int(time[0]) ?? -1) || !(0...59).contains(Int(time[1]) ?? -1) {
        problems.append("startTime \(plan.startTime.debugDescription) is not 05:00-12:59")
    }
    if !(2...4).contains(plan.legs.count) { problems.append("\(plan.legs.count) legs, not 2-4") }
    for (index, leg) in plan.legs.enumerated() {
        if !(0.5...12.0).contains(leg.distance) { problems.append("leg \(index + 1) distance \(leg.distance) not in 0.5-12") }
        if !(10...240).contains(leg.minutes) { problems.append("leg \(index + 1) minutes \(leg.minutes) not in 10-240") }
    }
    if !(0...1800).contains(plan.elevationGain) { problems.append("elevationGain \(plan.elevationGain) not in 0-1800") }
    if plan.packingList.count != 3 { problems.append("\(plan.packingList.count) packing items, not 3") }
    if plan.tags.count > 3 { problems.append("\(plan.tags.count) tags, more than 3") }
    for tag in plan.tags where tag.isEmpty || !tag.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) }) {
        problems.append("tag \(tag.debugDescription) is not one lowercase word")
    }
    if !Difficulty.allCases.contains(plan.difficulty) { problems.append("unknown difficulty") }
    return problems
}

func summary(of plan: HikePlan) -> String {
    let kilometers = plan.legs.reduce(0) { $0 + $1.distance }
    let stops = plan.legs.map { leg -> String in
        switch leg.landmark {
        case .summit(let name, let elevation): "summit \(name) \(elevation) m"
        case .hut(let name, let beds): "hut \(name) (\(beds) beds)"
        case .lake(let name): "lake \(name)"
        case .viewpoint: "viewpoint"
        }
    }
    return "\(plan.trailCode) \(plan.title.prefix(40).debugDescription) \(plan.difficulty.rawValue) at \(plan.startTime), "
        + "\(plan.legs.count) legs \(String(format: "%.1f", kilometers)) km +\(plan.elevationGain) m "
        + "[\(stops.joined(separator: "; ").prefix(80))] pack \(plan.packingList.count) tags \(plan.tags)"
}

// MARK: - N guided requests

let regions = ["the Dolomites", "the Lake District", "Yosemite Valley", "the Scottish Highlands", "the Black Forest",
               "Patagonia", "the Pyrenees", "the Blue Mountains", "Mount Rainier", "the Swiss Jura"]
let moods = ["quiet forest paths", "a big view at the top", "lakes to swim in", "an easy family outing",
             "a hard training day", "old mountain huts"]

var validCount = 0
for index in 0..<requestCount {
    let request = HikeRequest(region: regions[index % regions.count], mood: moods[index % moods.count],
                              difficulty: index % 3 == 0 ? nil : Difficulty.allCases[index % 3])
    let sampling: GenerationOptions.SamplingMode = index.isMultiple(of: 2) ? .greedy : .random(top: 40, seed: UInt64(index))
    let samplingName = index.isMultiple(of: 2) ? "greedy" : "top-40 seed \(index)"
    let options = GenerationOptions(samplingMode: sampling, temperature: 0.7, maximumResponseTokens: 300)
    do {
        let plan = try await planner.plan(request, options: options)
        let problems = violations(of: plan)
        if problems.isEmpty { validCount += 1 }
        print("#\(index + 1) [\(samplingName)] \(request.region): \(problems.isEmpty ? "ok" : "INVALID \(problems.joined(separator: ", "))") \(summary(of: plan))")
    } catch {
        print("#\(index + 1) [\(samplingName)] \(request.region): INVALID \(error.displayMessage)")
    }
}

// MARK: - The tool, once

var toolOK = false
do {
    let plan = try await planner.planAfterCheckingConditions(
        HikeRequest(region: "the Dolomites", mood: "a sunny ridge walk", difficulty: .moderate))
    let lookups = await planner.conditionsLog.lookups
    var problems = violations(of: plan)
    if lookups.isEmpty { problems.append("the tool was not called") }
    for lookup in lookups where !(0...3).contains(lookup.daysFromToday) {
        problems.append("daysFromToday \(lookup.daysFromToday) not in 0-3")
    }
    toolOK = problems.isEmpty
    let calls = lookups.map { "\($0.region.debugDescription), \($0.daysFromToday)" }.joined(separator: "; ")
    print("tool: \(toolOK ? "ok" : "INVALID \(problems.joined(separator: ", "))") checkTrailConditions(\(calls)) -> \(summary(of: plan))")
} catch {
    print("tool: INVALID \(error.displayMessage)")
}

// MARK: - The stream, once

var streamOK = false
do {
    let snapshots = try await planner.streamPlan(HikeRequest(region: "the Lake District", mood: "a misty morning", difficulty: .easy))
    var problems: [String] = []
    if let plan = planner.plan { problems += violations(of: plan) } else { problems.append("no final plan") }
    if snapshots.count < 2 { problems.append("\(snapshots.count) snapshots") }
    if snapshots.contains(where: { ($0.legs?.count ?? 0) > 4 || ($0.packingList?.count ?? 0) > 3 }) {
        problems.append("a snapshot broke a count guide")
    }
    if planner.partialPlan?.trailCode != planner.plan?.trailCode { problems.append("the last snapshot is not the final plan") }
    streamOK = problems.isEmpty
    print("stream: \(streamOK ? "ok" : "INVALID \(problems.joined(separator: ", "))") \(snapshots.count) snapshots -> \(planner.plan.map(summary(of:)) ?? "nothing")")
} catch {
    print("stream: INVALID \(error.displayMessage)")
}

print("valid: \(validCount)/\(requestCount)")
exit(validCount == requestCount && toolOK && streamOK ? 0 : 1)
