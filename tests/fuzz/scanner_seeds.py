"""Seeds for the JSON scanner of the lean fleet reader (src/fleet/scanner.h), through the
fleet_document target: one small valid run document, and variants of it that reach each edge
of the scanner (make_seeds.py calls seeds(emit, out)):

  escapes       every two-character escape, in keys, host names, units and kept params
  unicode       \\u escapes of 1, 2 and 3 UTF-8 bytes, a surrogate pair; a lone high or low
                surrogate, a bad hex digit, a cut \\u (all refused)
  numbers       exponents (e, E, signs), -0, zero fractions, extremes; 1e400 (not finite), 01,
                1., .5, -, 1e (refused)
  nesting       arrays and objects nested just under and just over the depth limit, in a
                skipped field
  truncation    the document cut inside or right after every kind of token
  8-byte scan   strings of 6 to 18 characters with a quote, a backslash or a control character
                at each offset around the scanner's eight-byte steps
"""
import json

TARGET = "fleet_document"
DEPTH_LIMIT = 128  # kMaxJsonDepth (src/core/json_document.h)


def base(hostname="node-a", name="gemm_tflops", unit="TFLOP/s", value="712.5",
         params='{"gpu": "0", "dtype": "bf16", "pct_of_peak": "72.0"}', extra=""):
    """A run document of one check and one benchmark with one measurement, as text: the fields
    are spliced in verbatim so that a variant can hold what json.dumps would not write."""
    return ('{"schema_version": 1, "command": "run", "started_at": "2026-12-01T00:00:00Z",'
            ' "duration_ms": 12.5, "incomplete": false, "warnings": [],'
            ' "host": {"hostname": "%s", "kernel": "6.1", "arch": "x86_64", "root": "/",'
            ' "gpu_driver": "550.54"},'
            ' "tool": {"version": "0.9", "name": "yardstick"},'
            ' "checks": [{"id": "gpu.ecc", "outcome": "pass", "summary": "ok",'
            ' "duration_ms": 1, "evidence": {"driver_version": "550.54"}, "findings": []}],'
            ' "benchmarks": [{"id": "gemm.gpu", "outcome": "pass", "summary": "ok",'
            ' "duration_ms": 2, "measurements": [{"name": "%s", "value": %s, "unit": "%s",'
            ' "better": "higher", "params": %s,'
            ' "stats": {"n": 3, "min": 1, "median": 2, "max": 3, "mean": 2, "stdev": 0.5},'
            ' "samples": [1, 2.5e0, 3]}]}]%s}' % (hostname, name, value, unit, params, extra))


def escapes():
    yield base(hostname=r'node-\"q\"\\\/\b\f\n\r\t')
    yield base(name=r"gemm\ttflops\n", unit=r"TFLOP\/s")
    yield base(params=r'{"gpu": "0", "dt\"ype": "b\\f16", "nccl_version": "2.\u0032\u0031"}')
    yield base(extra=r', "incomplete_reason": "\"\\\/\b\f\n\r\t"')
    yield base(hostname=r"node-\x")  # an unknown escape
    yield base(hostname="node-\tb")  # a raw control character


def unicode():
    for s in [r"\u0041", r"\u00e9", r"\u20ac", r"\ud83d\ude00", r"\u0000", r"\uFFFF", r"\uDBFF\uDFFF"]:
        yield base(hostname="n" + s)
        yield base(params='{"gpu": "%s", "driver_version": "%s"}' % (s, s))
    for bad in [r"\ud83d", r"\ud83dx", r"\ud83d\u0041", r"\ude00", r"\u12g4", r"\u12", r"\ud83d\ude"]:
        yield base(hostname="n" + bad)
    yield base(hostname="n\u00e9\u20ac")  # raw UTF-8


def numbers():
    for v in ["1e5", "1E5", "1e+5", "1e-5", "-2.5E-3", "0", "-0", "0.0", "-0.0e0",
              "1.7976931348623157e308", "4.9e-324", "123456789012345678901234567890",
              "0.000000000000000000001", "7e22", "9007199254740993"]:
        yield base(value=v)
    for v in ["1e400", "-1e400", "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "1.e5",
              "NaN", "Infinity", "--1", "1ee5"]:
        yield base(value=v)
    yield base(extra=', "ranks": [{"rank": 1e0, "hostname": "node-a", "local_rank": 0,'
                     ' "state": "ok"}]')  # an integer written with an exponent
    yield base(extra=', "ranks": [{"rank": 1.5, "hostname": "node-a", "local_rank": 0,'
                     ' "state": "ok"}]')  # not an integer


def nesting():
    for depth in [DEPTH_LIMIT - 2, DEPTH_LIMIT, DEPTH_LIMIT + 2, 4 * DEPTH_LIMIT]:
        yield base(extra=', "extra": ' + "[" * depth + "]" * depth)
        yield base(extra=', "extra": ' + '{"a":' * depth + "1" + "}" * depth)
        yield base(extra=', "extra": ' + "[" * depth)  # unclosed


def truncations():
    text = base(hostname=r"n\u00e9\n", value="-1.5e-3")
    # Every prefix would be a thousand seeds; cut in and right after one token of each kind:
    # structure, keys, strings with and without escapes, numbers of each form, literals.
    markers = ['{"schema_version"', ": 1,", '"run"', "12.5", "false", "[]", '"hostname"',
               r"\u00e9", r"\n", '"higher"', "-1.5e-3", "2.5e0", '{"n": 3', "]}]"]
    cuts = {len(text) - 1}
    for m in markers:
        at = text.find(m)
        assert at >= 0, m
        cuts.update({at, at + 1, at + len(m) // 2, at + len(m) - 1, at + len(m)})
    for i in sorted(cuts):
        if 0 < i < len(text):
            yield text[:i]


def boundaries():
    # The scanner tests eight bytes at once from the opening quote, then byte by byte: put the
    # byte that stops it (a quote's escape, another escape, a control character) at each offset
    # around the ends of the first two steps, and plain strings of those lengths.
    for at in [0, 1, 6, 7, 8, 9, 15, 16, 17]:
        plain = "h" * (at + 3)
        yield base(hostname=plain[:at] + r"\"" + plain[at:])
        yield base(name=plain[:at] + r"\n" + plain[at:], unit=plain[:at] + r"\u00e9")
        yield base(hostname=plain[:at] + "\x1f" + plain[at:])  # a raw control character
    for length in [7, 8, 9, 15, 16, 17]:
        yield base(hostname="h" * length, name="g" * length)
        yield base(hostname="h" * length + "\u20ac")  # high bytes (valid UTF-8)


def seeds(emit, out):
    # The base document must be valid JSON that the reader accepts, else the variants test
    # nothing: check it once here.
    json.loads(base())
    for group in (escapes, unicode, numbers, nesting, truncations, boundaries):
        for text in group():
            emit(out, TARGET, text.encode("utf-8", "surrogatepass"))
