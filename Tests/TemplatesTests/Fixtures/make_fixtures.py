#!/usr/bin/env python3
"""Renders every template in templates/ over a set of conversations with Python's jinja2,
configured the way Hugging Face's `apply_chat_template` configures it, and writes cases.json:
the exact context each render got and its output (or the error it raised).

    pip install jinja2 && python3 make_fixtures.py

The Swift tests (TemplatesTests) render the same contexts and compare byte for byte.
Keys keep their order (json.dumps / object_pairs_hook), because `tojson` output depends on it.
"""
import json
import os
from datetime import datetime

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))

# The clock `strftime_now` reads, frozen so the fixtures are reproducible. The Swift tests pass
# the same instant (2026-01-15 09:30:00 UTC) to the renderer.
FROZEN_NOW = datetime(2026, 1, 15, 9, 30, 0)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers.utils.chat_template_utils: json.dumps with these defaults.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format):
    return FROZEN_NOW.strftime(format)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


# Special tokens each model's tokenizer defines (what apply_chat_template passes as bos/eos).
TOKENS = {
    "smollm2": ("<|im_start|>", "<|im_end|>"),
    "gemma3": ("<bos>", "<eos>"),
    "llama3": ("<|begin_of_text|>", "<|eot_id|>"),
    "qwen2.5": ("<|endoftext|>", "<|im_end|>"),
    "qwen3": ("<|endoftext|>", "<|im_end|>"),
    "mistral-v0.3": ("<s>", "</s>"),
    "phi3": ("<s>", "<|endoftext|>"),
    "deepseek-r1-distill": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    "hermes3-tool-use": ("<|begin_of_text|>", "<|im_end|>"),
    "granite-3.3": ("<|end_of_text|>", "<|end_of_text|>"),
}

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Zürich"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}

SYSTEM = {"role": "system", "content": "You are a concise assistant."}
U1 = {"role": "user", "content": "Hello! Who are you?"}
A1 = {"role": "assistant", "content": "I'm a small language model. How can I help?"}
U2 = {"role": "user", "content": "Name three primes."}
A2 = {"role": "assistant", "content": "2, 3 and 5."}

CONVERSATIONS = {
    "single-user": [U1],
    "system-user": [SYSTEM, U1],
    "multi-turn": [SYSTEM, U1, A1, U2],
    "multi-turn-no-system": [U1, A1, U2, A2],
    "empty-content": [{"role": "system", "content": ""}, {"role": "user", "content": ""},
                      {"role": "assistant", "content": ""}, {"role": "user", "content": "ok"}],
    "unicode-whitespace": [
        {"role": "user", "content": "  Grüß Gott! 日本語で答えて 🙂 \"quoted\" back\\slash\n\ttabbed line  \n"},
        {"role": "assistant", "content": "\nこんにちは — ça va? ✓\n"},
        {"role": "user", "content": "Ünïcödé <b>tags</b> & {{ not a template }} {% raw %}"},
    ],
    "not-alternating": [U1, {"role": "user", "content": "Are you there?"}],
    "tools": [
        {"role": "user", "content": "What's the weather in Zürich?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call12345", "type": "function",
             "function": {"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}}}]},
        {"role": "tool", "tool_call_id": "call12345", "name": "get_weather",
         "content": "{\"temperature\": 21.5, \"condition\": \"sunny\"}"},
        {"role": "assistant", "content": "It is 21.5 °C and sunny in Zürich."},
        {"role": "user", "content": "Thanks!"},
    ],
    "thinking": [
        SYSTEM, U1,
        {"role": "assistant", "content": "<think>\nThe user greets me.\n</think>\n\nHi! I'm an assistant."},
        U2,
        {"role": "assistant", "content": "2, 3, 5.", "reasoning_content": "Smallest primes."},
    ],
}

# Which conversations each template is rendered over (tools only where the template has tools).
PLAIN = ["single-user", "system-user", "multi-turn", "multi-turn-no-system", "empty-content",
         "unicode-whitespace", "not-alternating"]
MATRIX = {
    "smollm2": PLAIN,
    "gemma3": PLAIN,
    "llama3": PLAIN + ["tools", "tools-date-from-clock"],
    "qwen2.5": PLAIN + ["tools"],
    "qwen3": PLAIN + ["tools", "thinking", "thinking-disabled", "thinking-enabled"],
    "mistral-v0.3": PLAIN + ["tools"],
    "phi3": PLAIN,
    # Beyond the required set: templates with macros, previtem/nextitem, |items on dicts,
    # `in` on an undefined variable and strftime_now.
    "deepseek-r1-distill": PLAIN + ["tools", "thinking"],
    "hermes3-tool-use": PLAIN + ["tools"],
    "granite-3.3": PLAIN + ["tools"],
}


# Small templates exercising one construct each, rendered by the same environment. The Swift
# tests check these byte for byte too, so they pin down semantics the model templates touch
# only lightly (whitespace control, scoping, slicing, Python str()/repr(), tojson spacing).
XS = {"xs": [1, 2, 3, 4, 5], "d": {"k": "v", "n": 2, "z": None}, "s": "Hello, World",
      "msgs": CONVERSATIONS["multi-turn"]}
CONSTRUCTS = [
    ("text", "plain text\n", {}),
    ("trailing-newline-dropped", "a\n\n", {}),
    ("output", "a{{ s }}b{{ missing }}c", XS),
    ("comment", "a{# gone #}b\n{# line #}\nc", {}),
    ("trim-blocks", "{% if true %}\nx\n{% endif %}\ny", {}),
    ("lstrip-blocks", "a\n    {% if true %}\n    b\n    {% endif %}\nc", {}),
    ("lstrip-not-for-output", "a\n    {{ 'b' }}\n  c", {}),
    ("minus-trims", "a   {{- 'b' -}}   c  {%- if true -%}  d  {%- endif %} e", {}),
    ("plus-keeps", "a\n  {%+ if true +%}\nb{% endif %}", {}),
    ("comment-trim", "a\n  {#- c -#}  \n b\n  {# x #}\nc", {}),
    ("raw", "{% raw %}{{ not rendered }}{% endraw %}", {}),
    ("none-bool-print", "{{ none }} {{ true }} {{ false }} {{ True }}", {}),
    ("numbers", "{{ 1 + 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 1.5 + 1 }} {{ 3 * 'ab' }}", {}),
    ("float-repr", "{{ 0.1 }} {{ 1e16 }} {{ 1e15 }} {{ 1.0e-5 }} {{ 0.0001 }} {{ 100.0 }} {{ 2.5e-7 }} {{ 1/3 }} {{ [0.5, 1e22] | tojson }}", {}),
    ("string-escapes", "{{ 'a\\nb\\t\"c\"' }}|{{ \"it's\" }}|{{ 'x\\u00e9\\x41' }}", {}),
    ("str-of-containers", "{{ xs }} {{ d }} {{ [\"it's\", 'q\"', none, true, 1.0] }}", XS),
    ("if-elif-else", "{% for n in [1, 2, 3] %}{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% endif %},{% endfor %}", {}),
    ("loop-vars", "{% for x in ['a', 'b', 'c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem is defined }}{{ loop.nextitem }};{% endfor %}", {}),
    ("loop-cycle", "{% for x in xs %}{{ loop.cycle('odd', 'even') }} {% endfor %}", XS),
    ("for-else", "{% for x in [] %}x{% else %}empty{% endfor %}", {}),
    ("for-filter", "{% for x in xs if x is odd %}{{ loop.index }}:{{ x }}{% if not loop.last %},{% endif %}{% endfor %}", XS),
    ("break-continue", "{% for n in xs %}{% if n == 2 %}{% continue %}{% endif %}{% if n == 4 %}{% break %}{% endif %}{{ n }}{% endfor %}", XS),
    ("scoping", "{% set a = 1 %}{% for x in [1, 2] %}{{ a }}{% set a = x * 10 %}{{ a }}{% endfor %}|{{ a }}{% if true %}{% set b = 3 %}{% endif %}{{ b }}", {}),
    ("namespace", "{% set ns = namespace(total=0, seen=false) %}{% for x in xs %}{% set ns.total = ns.total + x %}{% if x == 2 %}{% set ns.seen = true %}{% endif %}{% endfor %}{{ ns.total }} {{ ns.seen }}", XS),
    ("namespace-empty", "{% set ns = namespace() %}{% set ns.a = 'x' %}{{ ns.a }}", {}),
    ("set-tuple", "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", XS),
    ("set-block", "{% set x %}\n  inner {{ 1 + 1 }}\n{% endset %}[{{ x }}]", {}),
    ("macro", "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} {{ greet('B', punct='?') }} {{ greet(name='C') }}", {}),
    ("macro-caller", "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') %}bold {{ s }}{% endcall %}", XS),
    ("comparisons", "{{ 1 < 2 }}{{ 2 <= 1 }}{{ 'a' == 'a' }}{{ 'a' != 'a' }}{{ 3 > 2 }}{{ 1 >= 1 }}{{ 1 == 1.0 }}{{ true == 1 }}{{ 1 < 2 < 3 }}{{ 'b' > 'a' }}{{ [1, 2] < [1, 3] }}", {}),
    ("logic", "{{ true and false }} {{ true or false }} {{ not true }} {{ not (1 == 2) }} {{ 0 or 'x' }} {{ 'a' and 'b' }} {{ none or [] }}", {}),
    ("in", "{{ 'W' in s }}{{ 2 in xs }}{{ 'k' in d }}{{ 'q' not in d }}{{ 'x' in missing }}", XS),
    ("tests", "{{ xs is defined }}{{ y is defined }}{{ y is not defined }}{{ d.z is none }}{{ s is string }}{{ xs is iterable }}{{ s is iterable }}{{ d is mapping }}{{ 1 is number }}{{ 1.5 is float }}{{ 1 is integer }}{{ true is boolean }}{{ false is false }}{{ 4 is even }}{{ 9 is divisibleby 3 }}{{ 1 is sameas true }}{{ 2 is eq 2 }}{{ none is true }}", XS),
    ("conditional-expr", "{{ 'yes' if s else 'no' }}[{{ 'a' if false }}]{{ 1 if none else 2 }}", XS),
    ("concat", "{{ 'n=' ~ 3 ~ true ~ none ~ missing }}", {}),
    ("subscripts", "{{ xs[0] }}{{ xs[-1] }}{{ d['k'] }}{{ d.k }}{{ s[1] }}{{ msgs[0].role }}{{ msgs[1]['content'] }}{{ xs[10] is defined }}", XS),
    ("slices", "{{ xs[1:] }}{{ xs[:2] }}{{ xs[::-1] }}{{ xs[::2] }}{{ xs[1::2] }}{{ xs[-1:0:-1] }}{{ xs[:-2:-1] }}{{ xs[-3:] }}{{ s[::-1] }}{{ s[2:5] }}{{ xs[5:1] }}", XS),
    ("literals", "{{ [1, 'a'] }}{{ {'k': 1}['k'] }}{{ (1) }}{{ {'a': {'b': [1, {'c': none}]}} }}", {}),
    ("filter-precedence", "{{ 'a' + ' b ' | trim + 'c' }}|{{ -3 | abs }}|{{ xs | length + 1 }}", XS),
    ("filters-text", "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }}|{{ s | upper }}{{ s | lower }}|{{ 'hello wORLD' | capitalize }}|{{ 'hello wORLD-foo (bar' | title }}|{{ s | replace('l', 'L') }}|{{ s | replace('l', 'L', 1) }}|{{ s | length }}|{{ s | wordcount }}", XS),
    ("filters-lists", "{{ xs | join('-') }}|{{ xs | first }}{{ xs | last }}|{{ xs | reverse | list }}|{{ [3, 1, 2, 1] | unique | list }}|{{ [3, 1, 2] | sort }}|{{ xs | sum }}|{{ xs | min }}{{ xs | max }}|{{ 'abc' | list }}|{{ d | list }}|{{ xs | length }}{{ d | count }}", XS),
    ("filters-default", "{{ missing | default('dflt') }}|{{ '' | default('e', true) }}|{{ none | default('n') }}|{{ missing | d('x') }}|{{ s | string }}{{ 5 | string }}|{{ '42' | int + 1 }}{{ '4.5' | float }}{{ 'x' | int }}", XS),
    ("filters-dicts", "{% for k, v in d | items %}{{ k }}={{ v }};{% endfor %}|{% for k, v in d | dictsort %}{{ k }}{% endfor %}|{{ missing | items | list }}", XS),
    ("selectattr", "{{ msgs | selectattr('role', 'equalto', 'user') | list | length }} {{ (msgs | selectattr('role', 'equalto', 'user') | list)[-1].content }} {{ msgs | rejectattr('role', 'equalto', 'user') | map(attribute='role') | join(',') }} {{ xs | select('odd') | list }} {{ xs | reject('even') | list }}", XS),
    ("selectattr-truthy", "{% for i in items | selectattr('on') %}{{ i.n }}{% endfor %}|{{ items | map(attribute='n') | list }}", {"items": [{"n": 1, "on": True}, {"n": 2, "on": False}, {"n": 3}]}),
    ("string-methods", "{{ ' x '.strip() }}|{{ s.startswith('Hell') }}{{ s.endswith('x') }}{{ s.startswith(('a', 'H')) }}|{{ s.upper() }}{{ s.lower() }}|{{ 'hello wORLD they\\'re'.title() }}|{{ ' x '.lstrip() }}|{{ ' x '.rstrip() }}|{{ s.replace('o', '0') }}|{{ s.find('o') }}{{ s.count('l') }}|{{ 'ab12'.isalnum() }}{{ '12'.isdigit() }}{{ '  '.isspace() }}", XS),
    ("strip-chars", "[{{ '\\n\\nx\\n'.strip('\\n') }}][{{ 'xxay'.lstrip('x') }}][{{ 'ayyx'.rstrip('xy') }}][{{ ' a '.strip(none) }}]", {}),
    ("split", "{{ 'a<b>c<b>'.split('<b>') }}{{ ' a  b \\n c '.split() }}{{ 'x'.split(',') }}{{ 'r</think>a'.split('</think>')[-1] }}{{ 'a,b,c'.split(',', 1) }}{{ 'a,b,c'.rsplit(',', 1) }}{{ 'l1\\nl2\\r\\nl3'.splitlines() }}", {}),
    ("dict-methods", "{{ d.get('k') }}{{ d.get('q', 'dflt') }}{{ d.get('q') }}{{ d.keys() | list }}{{ d.values() | list }}{% for k, v in d.items() if k != 'n' %}{{ k }}={{ v }};{% endfor %}", XS),
    ("tojson", "{{ {'a': [1, 'x', none, true, 2.5], 'b': {}} | tojson }}|{{ 'é\"\\\\\\n\\u2028\\x7f' | tojson }}|{{ msgs[0] | tojson }}|{{ d | tojson(sort_keys=true) }}", XS),
    ("tojson-indent", "{{ {'b': [1, {'c': 'x'}], 'a': {}, 'e': []} | tojson(indent=4) }}|{{ xs | tojson(indent=2) }}", XS),
    ("range", "{% for i in range(3) %}{{ i }}{% endfor %}{{ range(1, 8, 3) | list }}{{ range(3, -1, -1) | list }}{{ range(0, 3, -1) | list }}", {}),
    ("strftime", "{{ strftime_now('%Y-%m-%d %H:%M %d %b %Y %A') }}", {}),
    ("unicode-scalars", "{{ 'naïve 👍🏽 é'|length }} {{ 'naïve 👍🏽'[::-1] }} {{ 'e\\u0301' == '\\u00e9' }} {{ 'ß'|upper }}", {}),
    ("undefined-attr-is-defined", "{{ missing is defined }}{{ d.nope is defined }}{{ s.nope is defined }}{{ d.z.nope is defined }}", XS),
    ("items-key-vs-method", "{{ spec['items']['type'] }}|{{ spec.get('items').type }}|{% for k, v in spec.items() %}{{ k }};{% endfor %}", {"spec": {"type": "array", "items": {"type": "string"}}}),
    ("or-default-list", "{% for p in ['a', 'b'] %}{{ p }}{% if p not in (spec.required or []) %}?{% endif %}{% endfor %}|{{ (none or [1])[0] }}", {"spec": {"required": ["a"]}}),
    ("loop-index-slice", "{% for m in msgs %}{{ msgs[loop.index:] | length }}{% endfor %}", XS),
    ("macro-scoping", "{% macro f(xs, flag=false) -%}{%- for x in xs -%}{%- set flag = true -%}{%- endfor -%}{{ flag }}{%- endmacro %}{{ f([1]) }} {{ f([], true) }} {{ g is defined }}", {}),
    ("macro-recursion", "{% macro t(spec) -%}{%- if spec.type == 'array' -%}{{ t(spec['items']) }}[]{%- elif spec.type is iterable and spec.type is not string -%}{{ spec.type | join(' | ') }}{%- else -%}{{ spec.type }}{%- endif -%}{%- endmacro %}{{ t({'type': 'array', 'items': {'type': 'array', 'items': {'type': ['string', 'null']}}}) }}", {}),
    ("macro-reads-globals", "{% macro m() %}{% if ident is not defined %}{% set ident = 'default' %}{% endif %}{{ ident }}{% endmacro %}{{ m() }}|{% set ident = 'outer' %}{{ m() }}", {}),
    ("filter-in-concat", "{{ '// default: ' + d.n|tojson }}{{ ' | '.join(['a', 'b']) }}{{ s|length > 5 }}", XS),
    ("whitespace-macro-lines", "{% macro row(x) %}\n  <{{ x }}>\n{% endmacro %}\n{% for x in xs %}\n  {{ row(x) }}\n{% endfor %}\n", {"xs": [1, 2]}),
    ("nested-loops", "{% for a in [1, 2] %}{% set outer = loop %}{% for b in 'xy' %}{{ outer.index }}{{ loop.index }}{{ a }}{{ b }} {% endfor %}{% endfor %}", {}),
    ("raise", "before{{ raise_exception('Custom failure: ' ~ d.k) }}", XS),
    ("undefined-arith-error", "{{ missing + 1 }}", {}),
]


def context_for(template, conversation, add_generation_prompt):
    """The keyword arguments apply_chat_template hands the template."""
    bos, eos = TOKENS[template]
    name = conversation
    extra = {}
    if conversation == "thinking-disabled":
        name, extra = "thinking", {"enable_thinking": False}
    elif conversation == "thinking-enabled":
        name, extra = "thinking", {"enable_thinking": True}
    elif conversation == "tools-date-from-clock":
        name = "tools"
    elif template == "llama3":
        extra = {"date_string": "26 Jul 2024"}
    context = {
        "messages": CONVERSATIONS[name],
        "tools": [WEATHER_TOOL] if name == "tools" else None,
        "documents": None,
        "add_generation_prompt": add_generation_prompt,
        "bos_token": bos,
        "eos_token": eos,
    }
    context.update(extra)
    return context


def main():
    env = environment()
    cases = []
    for template, conversations in MATRIX.items():
        with open(os.path.join(HERE, "templates", template + ".jinja"), encoding="utf-8") as f:
            compiled = env.from_string(f.read())
        for conversation in conversations:
            for agp in (True, False):
                context = context_for(template, conversation, agp)
                case = {"template": template, "conversation": conversation,
                        "add_generation_prompt": agp, "context": context}
                try:
                    case["expected"] = compiled.render(**json.loads(json.dumps(context)))
                except (jinja2.exceptions.TemplateError, TypeError) as error:
                    # raise_exception, or a Python error apply_chat_template would surface too.
                    case["error"] = str(error)
                cases.append(case)
    constructs = []
    for name, source, context in CONSTRUCTS:
        case = {"name": name, "template": source, "context": context}
        try:
            case["expected"] = env.from_string(source).render(**json.loads(json.dumps(context)))
        except jinja2.exceptions.TemplateError as error:
            case["error"] = str(error)
        constructs.append(case)
    with open(os.path.join(HERE, "constructs.json"), "w", encoding="utf-8") as f:
        json.dump(constructs, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    errors = sum(1 for c in cases if "error" in c)
    print(f"{len(cases)} cases ({errors} expected errors) -> cases.json; {len(constructs)} constructs -> constructs.json")


if __name__ == "__main__":
    main()
