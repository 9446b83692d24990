// The FM27 macros, declared as Foundation Models declares them. The QuantaMacros plugin
// (Sources/QuantaMacros) expands them; it reads the declaration's source text itself, so the
// package needs no dependency beyond the toolchain.

/// Makes a struct or enum `Generable`: writes its `generationSchema` (stored properties in
/// declaration order, with the descriptions and guides of their `@Guide` attributes; or the
/// enum's cases), `init(_:)`, `generatedContent` and, for structs, a `PartiallyGenerated` form
/// whose properties are all optional.
///
/// ```swift
/// @Generable(description: "A day plan")
/// struct Itinerary {
///     @Guide(description: "The city", /[A-Z][a-z]+/) var city: String
///     @Guide(.count(1...4)) var activities: [Activity]
///     var notes: String?
/// }
/// ```
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: arbitrary)
public macro Generable(description: String? = nil) = #externalMacro(module: "QuantaMacros", type: "GenerableMacro")

/// `@Generable` whose generated content writes absent optionals as `null` when
/// `representNilExplicitlyInGeneratedContent` is true (by default they are left out).
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: arbitrary)
public macro Generable(description: String? = nil, representNilExplicitlyInGeneratedContent: Bool) =
    #externalMacro(module: "QuantaMacros", type: "GenerableMacro")

/// `@Generable` with the name the schema gives the type (by default the type's own name).
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: arbitrary)
public macro Generable(name: String, description: String? = nil, representNilExplicitlyInGeneratedContent: Bool = false) =
    #externalMacro(module: "QuantaMacros", type: "GenerableMacro")

/// Describes a property of a `@Generable` type and constrains its values.
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "QuantaMacros", type: "GuideMacro") where T: Generable

/// Constrains a string property of a `@Generable` type to a regex.
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "QuantaMacros", type: "GuideMacro")

/// Describes a property of a `@Generable` type.
@attached(peer)
public macro Guide(description: String) = #externalMacro(module: "QuantaMacros", type: "GuideMacro")

/// Declares a session property in an extension of `SessionPropertyValues`, with its initial
/// value as the default:
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var isExpertMode: Bool = false
/// }
/// ```
@attached(accessor)
@attached(peer, names: prefixed(__Key_))
public macro SessionPropertyEntry() = #externalMacro(module: "QuantaMacros", type: "SessionPropertyEntryMacro")

/// Used by `@SessionPropertyEntry`'s expansion: turns the key's `defaultValue` into a getter.
@attached(accessor)
public macro __SessionPropertyEntryDefaultValue() =
    #externalMacro(module: "QuantaMacros", type: "SessionPropertyEntryDefaultValueMacro")
