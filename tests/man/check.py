#!/usr/bin/env python3
"""Check that manual pages render right under both mandoc and groff.

    check.py PAGE...

For each mdoc page:

  * mandoc -Tlint -Wwarning says nothing;
  * groff -ww (as man-db runs it: -k -mandoc -Tutf8) says nothing;
  * the header is the section's standard one ("General Commands Manual" for
    section 1, ...) under both, and both print the same footer;
  * both print the same words: a macro one of them reads differently, a
    table cell that runs into the next, a quote that nests, all show up as
    a difference;
  * every cell of a column list (.Bl -column) fits its column, leaving two
    blanks before the next (groff does not wrap a cell: it runs into the
    next one; mandoc breaks the row);
  * every opening double quote is closed before another opens.

It prints each problem as "PAGE: what" (with the source line where there is
one) and exits 1 if there was any, so that it can run on pages anyone edits.
"""
import difflib
import re
import subprocess
import sys
import unicodedata

VOLUMES = {
    "1": "General Commands Manual",
    "2": "System Calls Manual",
    "3": "Library Functions Manual",
    "4": "Kernel Interfaces Manual",
    "5": "File Formats Manual",
    "6": "Games Manual",
    "7": "Miscellaneous Information Manual",
    "8": "System Manager's Manual",
    "9": "Kernel Developer's Manual",
}

problems = []


def problem(page, what, line=None):
    problems.append("%s:%s %s" % (page, "%d:" % line if line else "", what))


def run(cmd, data=None):
    p = subprocess.run(cmd, input=data, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def plain(text):
    """Rendered text without overstriking, as lines, trailing blank lines dropped."""
    text = re.sub(".\x08", "", text)
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c)
               else 1 for c in s)


def words(lines):
    """The words of a page body, joined across line breaks the way a reader joins them."""
    body = "\n".join(lines)
    # groff hyphenates (U+2010 at the end of a line); both break after a hyphen
    body = re.sub("\u2010\n\\s*", "", body)
    body = re.sub(r"(\S)-\n\s*(?=\S)", r"\1-", body)
    body = body.replace("\u2014", "-").replace("\u2013", "-").replace("\u2212", "-")
    return body.split()


def header_footer(page, who, lines, title, section):
    want = VOLUMES.get(section)
    if not lines:
        problem(page, "%s printed nothing" % who)
        return None
    head = lines[0].split()
    name = "%s(%s)" % (title, section)
    if want is not None and " ".join(head) != "%s %s %s" % (name, want, name):
        problem(page, "%s prints the header '%s'; the standard one is '%s %s %s'"
                % (who, " ".join(head), name, want, name))
    return " ".join(lines[-1].split())


def quotes(page, who, lines):
    depth = 0
    text = "\n".join(lines)
    for i, c in enumerate(text):
        if c == "\u201c":
            depth += 1
            if depth > 1:
                ctx = " ".join(text[max(0, i - 40):i + 40].split())
                problem(page, "%s prints a quote inside a quote that is not closed: ...%s..."
                        % (who, ctx))
                return
        elif c == "\u201d":
            depth = max(0, depth - 1)
    if depth:
        problem(page, "%s prints a quote that is never closed" % who)


def split_args(s):
    """mdoc's argument splitting: blanks, and "quoted strings" with "" for a quote."""
    out, i, n = [], 0, len(s)
    while i < n:
        while i < n and s[i] in " \t":
            i += 1
        if i >= n:
            break
        if s[i] == '"':
            i += 1
            w = []
            while i < n:
                if s[i] == '"':
                    if i + 1 < n and s[i + 1] == '"':
                        w.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                w.append(s[i])
                i += 1
            out.append("".join(w))
        else:
            j = i
            while j < n and s[j] not in " \t":
                j += 1
            out.append(s[i:j])
            i = j
    return out


def column_lists(src):
    """(line, widths, rows) of each .Bl -column list; rows are (line, cells) of its .It lines."""
    lists, cur = [], None
    for no, line in enumerate(src, 1):
        if line.startswith(".Bl ") and "-column" in line:
            args = split_args(line[4:])
            widths, skip = [], False
            for a in args[args.index("-column") + 1:]:
                if skip:
                    skip = False
                elif a in ("-offset", "-width"):
                    skip = True
                elif a in ("-compact",):
                    pass
                else:
                    widths.append(a)
            cur = (no, widths, [])
            lists.append(cur)
        elif line.startswith(".El") and cur is not None:
            cur = None
        elif cur is not None and re.match(r"\.It(\s|$)", line):
            rest = line[3:].strip()
            cells = re.split(r"\t|\s+Ta(?:\s+|$)", rest)
            cur[2].append((no, cells))
    return lists


def cell_widths(cells):
    """The rendered width of each mdoc fragment, through mandoc."""
    doc = [".Dd January 1, 2000", ".Dt X 1", ".Os", ".Sh X"]
    for i, c in enumerate(cells):
        doc += [".Pp", "XQXCELL%d" % i, ".br", ".No %s" % c if c.strip() else "\\&"]
    rc, out, err = run(["mandoc", "-Tutf8", "-Owidth=1000"], "\n".join(doc).encode())
    got = {}
    key, acc = None, []
    for l in plain(out)[1:-1]:
        m = re.match(r"\s*XQXCELL(\d+)$", l)
        if m:
            if key is not None:
                got[key] = " ".join(" ".join(acc).split())
            key, acc = int(m.group(1)), []
        elif key is not None:
            acc.append(l)
    if key is not None:
        got[key] = " ".join(" ".join(acc).split())
    return [got.get(i, "") for i in range(len(cells))]


def columns(page, src):
    for bl, widths, rows in column_lists(src):
        cells, where = [], []
        for no, row in rows:
            for k, c in enumerate(row[:-1]):
                if k < len(widths):
                    cells.append(c)
                    where.append((no, k))
        if not cells:
            continue
        # a column is its width string and a gap (groff's: 4 blanks for up to 4 columns,
        # 3 for 5, 1 for more; mandoc's is the same); a cell may take all but two of the gap
        gap = 4 if len(widths) < 5 else 3 if len(widths) == 5 else 1
        for (no, k), text in zip(where, cell_widths(cells)):
            w = widths[k]
            m = re.match(r"^(\d+(?:\.\d+)?)([nm])$", w)
            limit = (float(m.group(1)) if m else width(w)) + max(gap - 2, 0)
            if width(text) > limit:
                problem(page, "the table cell '%s' (%d columns) does not fit its column (the "
                        "list's width string '%s' leaves it %d): groff runs it into the next "
                        "cell, mandoc breaks the row" % (text, width(text), w, limit), no)


def check(page):
    src = open(page, encoding="utf-8").read().split("\n")
    dt = next((l.split() for l in src if l.startswith(".Dt ")), None)
    if dt is None or len(dt) < 3:
        problem(page, "no .Dt TITLE SECTION line")
        return
    title, section = dt[1], dt[2]

    rc, out, err = run(["mandoc", "-Tlint", "-Wwarning", page])
    for l in (out + err).splitlines():
        problem(page, "mandoc: " + l)
    if rc != 0 and not (out + err).strip():
        problem(page, "mandoc -Tlint failed (exit %d)" % rc)

    rc, gout, gerr = run(["groff", "-ww", "-k", "-mandoc", "-Tutf8", page])
    for l in gerr.splitlines():
        problem(page, "groff: " + l)
    rc, mout, merr = run(["mandoc", "-Tutf8", page])
    glines, mlines = plain(gout), plain(mout)
    gfoot = header_footer(page, "groff", glines, title, section)
    mfoot = header_footer(page, "mandoc", mlines, title, section)
    if gfoot is not None and mfoot is not None and gfoot != mfoot:
        problem(page, "the footers differ: groff '%s', mandoc '%s'" % (gfoot, mfoot))
    quotes(page, "groff", glines[1:-1])
    quotes(page, "mandoc", mlines[1:-1])
    gw, mw = words(glines[1:-1]), words(mlines[1:-1])
    sm = difflib.SequenceMatcher(None, gw, mw, autojunk=False)
    for op, a1, a2, b1, b2 in sm.get_opcodes():
        if op != "equal":
            problem(page, "groff and mandoc print different text: groff '%s', mandoc '%s'"
                    % (" ".join(gw[max(0, a1 - 4):a2 + 4]), " ".join(mw[max(0, b1 - 4):b2 + 4])))
    columns(page, src)


def main(pages):
    for p in pages:
        check(p)
    for p in problems:
        print(p)
    if problems:
        print("man pages: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("man pages: %d render the same under mandoc and groff, without a warning" % len(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
