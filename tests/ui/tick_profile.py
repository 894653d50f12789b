#!/usr/bin/env python3
"""Where a slider tick's time goes: a perf profile cut to the ticks bench_window timed.

bench_window with BENCH_TICKS=1 prints every tick with the CLOCK_MONOTONIC time it began; perf
stamps its samples with the same clock when recorded with -k CLOCK_MONOTONIC. This keeps only
the samples inside a tick, so the drag's pauses (the bench settles between drags) and start-up
drop out, then says which paint event or which of the project's functions each sample was in.

    BENCH_TICKS=1 perf record -k CLOCK_MONOTONIC -e cpu-clock -F 2000 --call-graph dwarf,65528 \\
        -o perf.data build/tests/ui/bench_window 3 > ticks.txt
    perf script -i perf.data -F time,ip,sym,dso | python3 tests/ui/tick_profile.py ticks.txt
    ... | python3 tests/ui/tick_profile.py ticks.txt --only 'PP -> 64' --children LayoutDiagramPainter::paint

Use 64 KiB of stack per sample (dwarf,65528): with less, Qt's text drawing, whose frames are
large, loses its callers. Qt's own libraries have no symbols for their private functions; their
samples show as [unknown] in the library's name, under the caller that has one.
"""

import argparse
import bisect
import collections
import re
import sys

TICK = re.compile(r"^\s+(?P<slider>.+?) -> (?P<value>\S+): (?P<ms>[\d.]+) ms, .*began at (?P<began>[\d.]+) s")
CASE = re.compile(r"^(?P<case>\S.*) at (?P<size>\d+x\d+):$")
SAMPLE_HEAD = re.compile(r"^\s*(?:\d+\s+)?(?P<time>\d+\.\d+):\s*$")
# The project's own code (not Qt's QClasses): the innermost of these frames names where a
# sample's time went.
OWN = re.compile(r"^(trainplan::|(?!Q[A-Z])[A-Z][A-Za-z]*(Painter|Panel|View|Card|Chart|Scene|Canvas|Window|Document|Slider|Geometry|Model|"
                 r"Image|Series|Track|Edit|Widths|GroupBox)\b|chartframe::)")


def read_ticks(path, only):
    spans = []
    case = ""
    with open(path) as f:
        for line in f:
            m = CASE.match(line)
            if m:
                case = f"{m['case']} at {m['size']}"
                continue
            m = TICK.match(line)
            if not m:
                continue
            if only and only not in f"{case}: {m['slider']} -> {m['value']}":
                continue
            began = float(m["began"])
            spans.append((began, began + float(m["ms"]) / 1000.0))
    spans.sort()
    return spans


def samples(stream):
    """Yields (time, frames) with frames innermost first, as 'function (library)'."""
    time, frames = None, []
    for line in stream:
        if not line.strip():
            if time is not None:
                yield time, frames
            time, frames = None, []
            continue
        m = SAMPLE_HEAD.match(line)
        if m:
            time, frames = float(m["time"]), []
            continue
        parts = line.strip().split(None, 1)
        name = parts[1] if len(parts) > 1 else "?"
        name = re.sub(r"\+0x[0-9a-f]+", "", name)
        name = re.sub(r" \((/usr/lib/x86_64-linux-gnu/|/[^)]*/)?([^/)]+)\)$", r" (\2)", name)
        frames.append(name)
    if time is not None:
        yield time, frames


def function_of(frame):
    return re.sub(r"\(.*$", "", frame).strip() if not frame.startswith("[unknown]") else frame


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ticks", help="bench_window's output, run with BENCH_TICKS=1")
    parser.add_argument("--only", help="ticks whose 'case: slider -> value' contains this text, e.g. 'PP -> 64'")
    parser.add_argument("--children", help="also split this function's samples by the function it called")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    spans = read_ticks(args.ticks, args.only)
    if not spans:
        sys.exit("no ticks: run bench_window with BENCH_TICKS=1 (and check --only)")
    starts = [s[0] for s in spans]
    by_pane, innermost, children = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for time, frames in samples(sys.stdin):
        i = bisect.bisect_right(starts, time) - 1
        if i < 0 or time > spans[i][1]:
            continue
        total += 1
        names = [function_of(f) for f in frames]
        paint = next((n for n in names if n.endswith("::paintEvent")), None)
        by_pane[paint or "(outside a paint event)"] += 1
        innermost[next((n for n in names if OWN.match(n)), "(no project frame: Qt, libc, kernel)")] += 1
        if args.children:
            for k, n in enumerate(names):
                if args.children in n:
                    children[names[k - 1] if k > 0 else "(itself)"] += 1
                    break

    if total == 0:
        sys.exit("no samples inside the ticks: was perf recorded with -k CLOCK_MONOTONIC?")
    print(f"{len(spans)} ticks, {total} samples inside them")

    def table(title, counter):
        print(f"\n{title}")
        for name, n in counter.most_common(args.top):
            print(f"  {100.0 * n / total:6.2f} %  {name}")

    table("by paint event (the widget painting) or outside one", by_pane)
    table("by the innermost function of the project's own", innermost)
    if args.children:
        table(f"{args.children}: by the function it called", children)


if __name__ == "__main__":
    main()
