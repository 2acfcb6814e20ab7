#!/usr/bin/env python3
"""Transcripts for the ai-context tests: generate them, and check a compaction.

  transcript.py gen --shape SHAPE --seed N [--turns N] [--big N] > in.ndjson
  transcript.py check IN OUT --budget B [--keep K] [--tail-lines N] [--status S]
  transcript.py tokens FILE          the estimate ai-context makes for FILE

gen writes a deterministic transcript of one of these shapes:
  chat      user/assistant turns, a system message first
  agent     one question, then many tool rounds (tool_call, tool_result) with long output
  mixed     chat turns with tool rounds, parallel calls, search results, usage records,
            a system message in the middle, unknown record types, error records
  summaries like mixed, starting with an earlier summary and an earlier drop note
  cjk       chat turns in Chinese (more tokens per character)
  secrets   tool output holding secret-looking strings

check verifies, independently of ai-context's code, what its man page promises:
the budget (80%, or at most 100% when nothing more could go, or over it with
status 3), tool calls and results kept or removed together, every system
message and unknown record verbatim and in order, the recent window verbatim,
the order of records, digests that keep at most N lines of each text, and
summaries that say how many records they replace.
"""
import json
import math
import random
import sys

VISIBLE_NOT = {"usage", "error", "result", "delta", "query"}
KNOWN = {"message", "tool_call", "tool_result", "search_result", "summary"} | VISIBLE_NOT
SECRETS = ["sk-proj-abcdefghijklmnopqrstuvwxyz012345", "ghp_0123456789abcdefghijABCDEFGHIJ",
           "AKIAABCDEFGHIJKLMNOP"]


def words(rng, n):
    vocab = ["alpha", "beta", "gamma", "delta", "file", "build", "error", "ok", "path",
             "config", "test", "value", "the", "a", "of", "and", "is", "with"]
    return " ".join(rng.choice(vocab) for _ in range(n))


def lines(rng, n, secret=None):
    out = []
    for i in range(n):
        out.append("%05d %s" % (i, words(rng, rng.randint(1, 12))))
    if secret:
        out.insert(rng.randrange(len(out) + 1), "export OPENAI_API_KEY=" + secret)
        out.append("token: " + secret)
    return "\n".join(out) + "\n"


def rec(**kw):
    return json.dumps(kw, ensure_ascii=False, separators=(",", ":"))


def gen(shape, seed, turns, big):
    rng = random.Random(seed)
    out = []
    emit = out.append
    cid = [0]

    def call_pair(name="execute", nout=None, secret=None, parallel=1):
        ids = []
        for _ in range(parallel):
            cid[0] += 1
            ids.append("call_%d" % cid[0])
            emit(rec(type="tool_call", id=ids[-1], name=name,
                     arguments={"command": "cat notes.md | head -n %d" % rng.randint(1, 99)}))
        for i in ids:
            n = nout if nout is not None else rng.randint(1, big)
            emit(rec(type="tool_result", id=i, name=name, ok=True,
                     stdout_text=lines(rng, n, secret), stderr_text=lines(rng, rng.randint(0, 3)),
                     exit_code=0, total_bytes=n * 40, next_start=None, truncated=False,
                     cache_hit=False))

    def usage():
        emit(rec(type="usage", model="gpt-4.1-mini", input_tokens=rng.randint(100, 5000),
                 cached_tokens=0, output_tokens=rng.randint(5, 200), calls=1,
                 weighted_tokens=1000))

    if shape == "summaries":
        emit(rec(type="summary", content="We set up the build; the tests pass.",
                 key_facts=["the build uses make", "tests are in tests/"],
                 open_tasks=["write the man page"], replaces=12))
        emit(rec(type="summary", content="7 earlier records were dropped to fit the token budget.",
                 key_facts=[], open_tasks=[], replaces=7))
    emit(rec(type="message", role="system", content="You are a careful assistant. " + words(rng, 10)))
    if shape == "agent":
        emit(rec(type="message", role="user", content="What is still open in notes.md? " + words(rng, 5)))
        for t in range(turns):
            if rng.random() < 0.3:
                emit(rec(type="message", role="assistant", content="Looking. " + words(rng, 8)))
            call_pair(parallel=2 if rng.random() < 0.2 else 1)
        emit(rec(type="message", role="assistant", content="Done: " + words(rng, 30)))
        usage()
        return out
    for t in range(turns):
        if shape == "cjk":
            emit(rec(type="message", role="user", content="请总结第%d部分的内容，" % t + "并列出要点。" * rng.randint(1, 20)))
            emit(rec(type="message", role="assistant", content="好的。" + "这是一个很长的回答。" * rng.randint(5, 60)))
            continue
        emit(rec(type="message", role="user", content="Question %d: %s" % (t, words(rng, rng.randint(3, 60)))))
        r = rng.random()
        if shape == "secrets":
            call_pair(nout=rng.randint(15, 40), secret=rng.choice(SECRETS))
        elif shape in ("mixed", "summaries"):
            if r < 0.35:
                call_pair(parallel=rng.choice([1, 1, 2, 3]))
            elif r < 0.5:
                q = words(rng, 3)
                for k in range(1, rng.randint(2, 5)):
                    emit(rec(type="search_result", query=q, rank=k, title="Result " + words(rng, 4),
                             url="https://example.com/%d/%d" % (t, k), snippet=words(rng, 40),
                             provider="brave"))
            elif r < 0.55:
                emit(rec(type="x_note", text=words(rng, 20), n=t))
            elif r < 0.6:
                emit(rec(type="message", role="system", content="Mid-conversation rule " + str(t)))
            elif r < 0.63:
                emit(rec(type="result", status="limit", stop_reason="max_steps", steps=3,
                         calls=4, duration_ms=1200))
        elif shape == "chat" and r < 0.1:
            emit(rec(type="message", role="user", content="(and another thing) " + words(rng, 10)))
        emit(rec(type="message", role="assistant", content="Answer %d: %s" % (t, words(rng, rng.randint(5, 120)))))
        if shape in ("mixed", "summaries") and rng.random() < 0.5:
            usage()
    return out


# ---- the checker -------------------------------------------------------------

def load(path):
    recs = []
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n"):
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if raw.strip(b" \t") == b"":
                continue
            s = raw.decode("utf-8")
            recs.append((s, json.loads(s)))
    return recs


def kind(r):
    t = r["type"]
    if t == "message":
        role = r.get("role")
        return "system" if role == "system" else "user" if role == "user" else "assistant"
    return t if t in KNOWN else "unknown"


def chars(s):
    return len(s)  # code points: the line is valid UTF-8


def calibration(recs):
    """(k, index of the usage record) as aicli's ai-context defines it; (1.0, None) without one."""
    best = (1.0, None)
    prefix = 0
    for i, (s, r) in enumerate(recs):
        k = kind(r)
        if r["type"] == "usage":
            it, calls = r.get("input_tokens"), r.get("calls", 1)
            if isinstance(it, int) and it > 0 and (calls is None or calls == 1) \
                    and r.get("estimated") in (None, False):
                answer, j = 0, i
                while j > 0 and kind(recs[j - 1][1]) == "tool_call":
                    j -= 1
                    answer += chars(recs[j][0])
                if j > 0 and kind(recs[j - 1][1]) == "assistant":
                    j -= 1
                    answer += chars(recs[j][0])
                if prefix > answer:
                    best = (min(4.0, max(0.25, it / ((prefix - answer) / 4.0))), i)
        if r["type"] not in VISIBLE_NOT:
            prefix += chars(s)
    return best


def estimate(recs, k):
    return math.ceil(sum(chars(s) for s, r in recs if r["type"] not in VISIBLE_NOT) * k / 4.0)


def window_start(recs, keep):
    starts, last = [], None
    for i, (s, r) in enumerate(recs):
        k = kind(r)
        if k not in ("user", "assistant", "tool_call", "tool_result"):
            continue
        if k == "user" or last is None or (k in ("assistant", "tool_call") and last == "tool_result"):
            starts.append(i)
        last = k
    if keep == 0 or not starts:
        return len(recs)
    return starts[-keep] if len(starts) >= keep else starts[0]


def tail_ok(text, n):
    body = text[:-1] if text.endswith("\n") else text
    return (body.count("\n") + 1 if body else 0) <= max(n, 0) or (n == 0 and text == "")


def fail(msg):
    print("check: " + msg, file=sys.stderr)
    sys.exit(1)


def check(inp, outp, budget, keep, tail_lines, status):
    src, dst = load(inp), load(outp)
    win = window_start(src, keep)
    # tool pairs of the input
    calls, pairs = {}, {}
    for i, (s, r) in enumerate(src):
        if r["type"] == "tool_call" and isinstance(r.get("id"), str):
            calls[r["id"]] = i
            pairs[i] = [i]
        elif r["type"] == "tool_result" and r.get("id") in calls:
            pairs[calls[r["id"]]].append(i)
    group = {}
    for members in pairs.values():
        for m in members:
            group[m] = members
    pinned = set()
    for members in pairs.values():
        if any(m >= win for m in members):
            pinned.update(m for m in members if m < win)

    # walk both in order: each output record is the input record verbatim, its
    # rewrite (digest, trimmed search result), or the one inserted summary
    fate = {}
    src_lines = {s for s, _ in src}
    inserted = None
    j = 0
    for i, (s, r) in enumerate(src):
        if j < len(dst) and inserted is None and dst[j][1]["type"] == "summary" and dst[j][0] != s \
                and dst[j][0] not in src_lines:
            inserted = dst[j][1]
            j += 1
        if j < len(dst) and dst[j][0] == s:
            fate[i] = "keep"
            j += 1
            continue
        if j < len(dst) and r["type"] == "tool_result" and dst[j][1]["type"] == "tool_result" \
                and dst[j][1].get("id") == r.get("id"):
            d = dst[j][1]
            for key, v in d.items():
                if isinstance(v, str) and key not in ("type", "id", "name", "error_kind"):
                    if not tail_ok(v, tail_lines):
                        fail("line %d: digest member %s keeps more than %d lines" % (j + 1, key, tail_lines))
                    if len(v.encode()) > 4096:
                        fail("line %d: digest member %s is over 4096 bytes" % (j + 1, key))
            if set(d) - set(r) - {"truncated"}:
                fail("line %d: digest has members the result did not: %s" % (j + 1, sorted(set(d) - set(r))))
            # a redaction alone is not a cut
            shortened = [k for k, v in r.items() if isinstance(v, str) and k in d and d[k] != v
                         and "[REDACTED]" not in d[k]] + [k for k in r if k not in d]
            if shortened and d.get("truncated") is not True:
                fail("line %d: digest cut %s but does not say truncated" % (j + 1, shortened))
            for key in ("id", "name", "ok", "exit_code"):
                if key in r and d.get(key) != r[key]:
                    fail("line %d: digest lost %s" % (j + 1, key))
            fate[i] = "digest"
            j += 1
            continue
        if j < len(dst) and r["type"] == "search_result" and dst[j][1]["type"] == "search_result" \
                and dst[j][1].get("url") == r.get("url"):
            if set(dst[j][1]) - {"type", "query", "rank", "title", "url"}:
                fail("line %d: trimmed search result keeps %s" % (j + 1, sorted(dst[j][1])))
            fate[i] = "trim"
            j += 1
            continue
        fate[i] = "gone"
    if j != len(dst):
        fail("output line %d is not from the input, in order: %s" % (j + 1, dst[j][0][:200]))

    for i, (s, r) in enumerate(src):
        k = kind(r)
        f = fate[i]
        if k == "system" and f != "keep":
            fail("input line %d: a system message was not kept verbatim" % (i + 1))
        if k == "unknown" and f != "keep":
            fail("input line %d: a record of an unknown type was not kept verbatim" % (i + 1))
        if r["type"] in ("error", "result", "delta", "query") and f != "keep":
            fail("input line %d: a %s record was not kept" % (i + 1, r["type"]))
        if i >= win and r["type"] != "usage" and f != "keep":
            fail("input line %d: in the recent window but not kept verbatim (%s)" % (i + 1, f))
        if i in pinned and f == "gone":
            fail("input line %d: pairs with the recent window but was removed" % (i + 1))
        if i in group:
            fates = {fate[m] == "gone" for m in group[i]}
            if len(fates) > 1:
                fail("input line %d: a tool call and its results were not kept or removed together" % (i + 1))
    gone = sum(1 for f in fate.values() if f == "gone")
    if inserted is not None:
        for key in ("content", "key_facts", "open_tasks", "replaces"):
            if key not in inserted:
                fail("the inserted summary lacks %s" % key)
        # it stands for what went (stale usage records aside) plus what earlier summaries stood for
        went = [src[i][1] for i in fate if fate[i] == "gone" and src[i][1]["type"] != "usage"]
        want = sum(r.get("replaces", 1) if r["type"] == "summary" else 1 for r in went)
        if inserted["replaces"] != want:
            fail("the summary replaces %s records, want %d" % (inserted["replaces"], want))
    elif gone and any(src[i][1]["type"] != "usage" for i in fate if fate[i] == "gone"):
        fail("records were removed but no summary says so")

    k_in = calibration(src)[0]
    k_out = calibration(dst)[0]
    est = estimate(dst, max(k_in, k_out))
    before = estimate(src, k_in)
    if before * 5 <= budget * 4:
        if open(inp, "rb").read() != open(outp, "rb").read():
            fail("at or under 80%% of the budget (%d tokens) but the output differs" % before)
    if status == 0 and est > budget:
        fail("exit 0 but the output needs %d tokens, over the budget of %d" % (est, budget))
    if status == 3 and est <= budget:
        fail("exit 3 but the output fits the budget (%d <= %d)" % (est, budget))
    print("ok: %d -> %d records, %d -> %d tokens, window from input line %d" %
          (len(src), len(dst), before, est, win + 1))


def main():
    a = sys.argv[1:]
    if not a:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    opts = {}
    pos = []
    i = 1
    while i < len(a):
        if a[i].startswith("--"):
            opts[a[i][2:]] = a[i + 1]
            i += 2
        else:
            pos.append(a[i])
            i += 1
    if a[0] == "gen":
        for line in gen(opts.get("shape", "chat"), int(opts.get("seed", 1)),
                        int(opts.get("turns", 20)), int(opts.get("big", 200))):
            sys.stdout.write(line + "\n")
    elif a[0] == "tokens":
        recs = load(pos[0])
        print(estimate(recs, calibration(recs)[0]))
    elif a[0] == "check":
        check(pos[0], pos[1], int(opts["budget"]), int(opts.get("keep", 5)),
              int(opts.get("tail-lines", 10)), int(opts.get("status", 0)))
    else:
        sys.exit(2)


if __name__ == "__main__":
    main()
