#!/usr/bin/env python3
"""Differential test: ai-exec's built-ins against GNU coreutils, grep and jq 1.6.

Generates input files and pipelines from a fixed seed, runs every pipeline
through ai-exec (one --serve process; the command line again when a byte of
the output would not survive JSON) and through the real tools (bash, with
LC_ALL=C), and compares standard output byte for byte and the exit status.

A pipeline tagged as a documented difference (a row of the table in
ai-exec(1), read from the manual) must give what the tag says, and GNU must
give something else: that is asserted, not skipped; each row of the table
has a pipeline, and each tag names a row.
Everything else must be identical, where a shell pipeline's status is
compared as ai-exec defines it: 1 when some stage reported an error, else
the last stage's status; and a command ai-exec refuses before running (65,
77) must be one the GNU tools reject too.

usage: difftest.py WORKDIR [--seed N] [--cases N] [--jobs N] [--show N] [--only TEXT]
                   [--man PAGE]
The GNU side runs as a few bash scripts writing into WORKDIR.gnu.
Prints the counts; exits 1 on any mismatch.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys

PLAIN = re.compile(r'^[A-Za-z0-9%+,\-./:=@^_]+$')


def q(word):
    """A word for both sh and ai-exec's language."""
    if PLAIN.match(word):
        return word
    assert "'" not in word, word
    return "'" + word + "'"


# ---------------------------------------------------------------- the files

VOCAB = ["apple", "Apple", "APPLE", "banana", "cherry", "date", "elder", "fig",
         "grape", "kiwi", "lemon", "mango", "alpha", "beta", "gamma", "delta",
         "foo", "bar", "baz", "qux", "x", "y", "z", "a_b", "Foo", "FOO", "bar2",
         "def", "main", "class", "Bar", "ERROR", "WARN", "INFO", "error", "warn"]


def make_files(d, rnd):
    files = {}

    def put(name, data):
        if isinstance(data, str):
            data = data.encode('utf-8', 'surrogateescape')
        files[name] = data
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)

    put('empty.txt', b'')
    put('one.txt', 'hello\n')
    put('noeol.txt', 'b\na\nc')
    put('noeol2.txt', 'z\ny')
    put('crlf.txt', 'alpha\r\nBeta\r\ngamma\r\n\r\nalpha\r\n')
    lines = []
    for i in range(80):
        k = rnd.randint(1, 4)
        sep = rnd.choice([' ', ' ', '\t', '  '])
        lines.append(sep.join(rnd.choice(VOCAB) for _ in range(k)))
    put('words.txt', '\n'.join(lines) + '\n')
    dups = []
    for w in ['a', 'a', 'A', 'b', 'b', 'b', 'c', 'C', 'c', 'd', 'a', 'a', 'x y', 'x  y',
              'x Y', '1 x', '2 x', '2 y', '', '', 'e', 'ee', 'Ee']:
        dups.append(w)
    put('dups.txt', '\n'.join(dups) + '\n')
    nums = ['10', '9', '-3', '2.5', 'abc', '100', '0', '-0', '-0.5', ' 7', '\t8', '1.5 10',
            '1.50', '1.5', '+5', '.5', '-.5', '1e3', '1E-2', '0x1F', '1,000', '1K', '2M',
            '3G', '10k', '1T', '5P', 'inf', '-inf', 'nan', '', '007', '1.5.3', '000.000',
            '-000', '12abc', '  -4.25', '3.14159', '2.500', '99999999999999999999',
            '1.0000000000000000001', '-1e309', 'Jan', 'FEB', ' mar', 'Dec 12', 'june',
            'XYZ', '1K', '1023', '1Ki', '0.9M', '-2K', '',
            # equal in their first 15 significant digits, apart after
            '1234567890123456', '1234567890123457', '-1234567890123456',
            '-1234567890123457', '0.0000000000000001', '0.00000000000000001', '-0.0000000000000001',
            '123456789012345.6', '123456789012345.06', '0' * 20 + '5', '9' * 4100, '9' * 4099,
            '1' + '0' * 4100]
    put('nums.txt', '\n'.join(nums) + '\n')
    vers = ['1.2', '1.10', '1.9', 'v1.2.3', 'v1.2.10', '1.2a', '1.2~rc1', '1.2-rc1',
            'file10.txt', 'file9.txt', 'file.txt', '.hidden', '..', '.', 'a1b2',
            'a01b2', '2.0.0', '10', '2', 'x-1.0.tar.gz', 'x-1.0.1.tar.gz', '1.2.3~beta']
    put('versions.txt', '\n'.join(vers) + '\n')
    tsv = []
    for i in range(25):
        k = rnd.randint(1, 5)
        fields = [rnd.choice(['', 'ann', 'bob', 'cid', str(rnd.randint(-50, 500)),
                              'Oslo', 'Rome', ' x', 'a b', str(rnd.random() * 100)[:6]])
                  for _ in range(k)]
        tsv.append('\t'.join(fields))
    put('table.tsv', '\n'.join(tsv) + '\n')
    csv = ['a,b,c', '1,2,3', '4,,6', 'no-delim', ',lead', 'trail,', 'x,y,z,w,v', '',
           '10,20', 'q,"r,s",t']
    put('data.csv', '\n'.join(csv) + '\n')
    log = ['2024-01-02 10:00:01 ERROR disk full on /dev/sda1',
           '2024-01-02 10:00:02 WARN cpu at 95%',
           '2024-01-02 10:00:03 INFO started worker 7',
           'def main():', '    return 0', 'class Bar {', '  int x; // TODO', '}',
           'error: lower case', 'Error: Mixed', 'warning: something', '*star* line',
           'path\\to\\file', 'a.b.c', 'aXbXc', 'tab\there', 'price $5 (usd)',
           '[bracket] line', 'x+y=z', 'foo bar baz', 'foobar', 'barfoo', 'foo_bar',
           'id=123 name=x', 'id=45', 'the end']
    put('log.txt', '\n'.join(log) + '\n')
    put('utf8.txt', 'h\u00e9llo w\u00f6rld\n\u65e5\u672c\u8a9e\n\u00c9t\u00e9 \u00e9t\u00e9\n'
        'caf\u00e9\nna\u00efve\n\U0001F600 smile\n')
    put('bad.txt', b'good line\nbad \xff byte\nhalf \xc3 char\nlatin1 caf\xe9\n'
        b'ok again\n\xe9t\xe9\n')
    put('ctrl.txt', b'plain\nbell\x07 here\nesc \x1b[31mred\x1b[0m\ndel\x7f char\n'
        b'\x01start\nvt\x0bff\x0cend\ncr\rin middle\n')
    longl = ['short', 'x' * 3000, ' '.join(rnd.choice(VOCAB) for _ in range(1200)),
             'y' * 70000 + ' needle', 'tail']
    put('long.txt', '\n'.join(longl) + '\n')
    nul = b'text before the nul line\n' * 30 + b'abc\x00def\nmatch here\nnul\x00\x00x\n' + \
        b'after a\n'
    put('nul.txt', nul)
    big = []
    for i in range(9000):
        big.append('line %05d %s' % (i, rnd.choice(VOCAB)))
    bigb = ('\n'.join(big) + '\n').encode()
    cut_at = 100000
    bigb = bigb[:cut_at] + b'bin\x00ary apple\n' + bigb[cut_at:]
    put('big.txt', bigb)
    put('blank.txt', 'a\n\n\n\nb\n \n\t\n\nc\n\n')
    put('nl.txt', 'head0\n\\:\\:\\:\nh1\n\nh2\n\\:\\:\nb1\n\nb2\n\\:\nf1\n\\:\\:\nb3\n'
        '@@\n@@@@\nend\n')
    j1 = {"name": "aicli", "tags": ["c", "unix", "\u00e9t\u00e9"], "n": 3, "f": 1.5,
          "nested": {"a": [1, 2, {"b": None}], "e": "\u65e5"}, "t": True, "z": False,
          "big": 12345678901234567890, "neg": -0.0, "esc": "a\"b\\c\n\t"}
    put('j1.json', json.dumps(j1, indent=2, ensure_ascii=False) + '\n')
    nd = [{"a": 1, "b": "x", "name": "ann"}, {"a": 2, "b": "y", "name": "bob"},
          {"a": "x", "name": "cid"}, {"a": 3.5, "b": None, "name": "\u00e9"},
          [1, 2, 3], "str", 7, None, {"a": {"b": "\u00e9"}}]
    put('j2.ndjson', '\n'.join(json.dumps(v, ensure_ascii=False) for v in nd) + '\n')
    put('j3.json', json.dumps([{"id": i, "v": rnd.choice(VOCAB), "w": rnd.randint(0, 9)}
                               for i in range(12)]) + '\n')
    put('jbad.json', '{"a":1}\n{"a":2}\n{"a": oops}\n{"a":4}\n')
    put('jnum.json', '1 2.5 -3 1e3 100000000000000000000 0.1 -0 1.0\n')
    put('jstr.json', '"plain" "with \\"quote\\"" "\\u00e9" "tab\\t" "" "\\ud83d\\ude00"\n')
    put('jnoeol.json', '{"k": 1}')
    put('jmulti.json', '{"a":1}{"a":2} {"a":3}\n[1,\n2]\n')
    return files


# ---------------------------------------------------------------- the cases

TEXT = ['words.txt', 'dups.txt', 'nums.txt', 'noeol.txt', 'crlf.txt', 'log.txt',
        'utf8.txt', 'bad.txt', 'ctrl.txt', 'table.tsv', 'data.csv', 'blank.txt',
        'empty.txt', 'one.txt', 'versions.txt', 'long.txt', 'nul.txt', 'nl.txt']
JSON = ['j1.json', 'j2.ndjson', 'j3.json', 'jnum.json', 'jstr.json', 'jnoeol.json',
        'jmulti.json']

GREP_PATTERNS = [
    ('G', 'ERROR\\|WARN'), ('G', 'def main():'), ('G', 'class Bar {'), ('G', '*star'),
    ('G', 'a.*b'), ('G', '^[0-9]\\{4\\}-'), ('G', '\\<foo\\>'), ('G', 'foo\\|bar'),
    ('G', 'x\\+y'), ('G', 'a\\?b'), ('G', '\\(ab\\)*c'), ('G', '[[:upper:]][[:lower:]]'),
    ('G', '[^a-z ]'), ('G', '^$'), ('G', '$'), ('G', '^'), ('G', 'e$'), ('G', '\\.'),
    ('G', '.'), ('G', 'a\\{2,\\}'), ('G', '[[:space:]]\\+'), ('G', '\\w\\+_\\w'),
    ('G', '\\bbar'), ('G', 'bar\\B'), ('G', 'id=[0-9]*'), ('G', '\\$5'), ('G', '[]x]'),
    ('G', 'é'), ('G', '\\d'), ('G', 'x{1,2}'), ('G', '\\S\\s\\S'), ('G', 'apple'),
    ('E', 'ERROR|WARN'), ('E', '^(foo|bar)'), ('E', '[0-9]+'), ('E', 'a{2,3}'),
    ('E', '(a|b)+c'), ('E', 'x+y'), ('E', '^[^ ]+$'), ('E', '\\<(a|b)'), ('E', 'o{2}'),
    ('E', '(^|[^a-z])bar'), ('E', '.{5,}'), ('E', 'apple|banana|cherry'), ('E', '()'),
    ('E', 'a|'), ('E', '\\(x\\)'), ('E', 'id=([0-9]+)'), ('E', '[[:digit:]]{2}'),
    ('F', 'a.b'), ('F', '*star*'), ('F', '$5'), ('F', 'foo'), ('F', ''), ('F', 'TODO'),
    ('F', '\\to'), ('F', 'apple'), ('F', 'é'),
]

JQ_FILTERS = ['.', '.name', '.a', '.[]', '.[0]', 'keys', 'length', '.nested', '.tags[]',
              '.a + 1', 'map(.id)', 'map(select(.w > 4)) | length', '.[] | .v',
              'to_entries', 'type', 'tostring', '.. | numbers', 'paths', '[.[] | .a?]',
              '.name // "none"', 'select(.a == 2)', '{n: .name}', 'ascii_downcase?',
              '@csv?', '[.[]?] | add', 'halt', '.a, halt', 'halt_error',
              '"bye\\n" | halt_error(1)', 'halt_error(0)', 'error("boom")', '.x.y',
              'input', '[inputs]', '[., input]', 'debug', 'tojson', '@base64?',
              '$__loc__',
              'splits(", ")?', 'sort_by(.w)? | map(.id)', 'group_by(.w)? | length',
              'reduce .[] as $x (0; . + 1)', 'limit(2; .[]?)', 'first(.[]?)',
              'if type == "object" then .name else . end', '.[1:3]?', 'not',
              'getpath(["nested","a"])', '[paths(type == "number")]', 'ltrimstr("a")',
              'test("a")?', 'ascii?', 'implode?', 'explode?', '.f * 2', 'tostream', 'fromjson?', '@text', '@json', '@html', '@sh?', '@uri']


def gen_cases(rnd, n):
    cases = []

    def add(cmd, tag=None):
        cases.append({'cmd': cmd, 'tag': tag})

    def files(k=None, pool=TEXT):
        k = k if k is not None else rnd.choice([1, 1, 1, 2])
        return [rnd.choice(pool) for _ in range(k)]

    def src(pool=TEXT):
        """A FILE operand list, or a cat before the stage (its standard input)."""
        if rnd.random() < 0.3:
            # no file with a NUL past 64 KiB through a pipe: GNU grep's reads cut it anywhere
            return 'cat ' + ' '.join(f if f not in ('big.txt', 'nul.txt') else 'words.txt'
                                     for f in files(pool=pool)) + ' | ', ''
        return '', ' ' + ' '.join(files(pool=pool))

    def cat_case():
        opts = [o for o in ['-A', '-b', '-e', '-E', '-n', '-s', '-t', '-T', '-u', '-v']
                if rnd.random() < 0.2]
        pre, fs = src()
        return pre + 'cat' + (' ' + ' '.join(opts) if opts else '') + fs

    def nl_case():
        opts = []
        for o in ['-b', '-h', '-f']:
            if rnd.random() < 0.3:
                opts.append(o + ' ' + q(rnd.choice(['a', 't', 'n', 'pa', 'p^[a-c]',
                                                     'p[0-9]', 'p\\(x\\|h\\)'])))
        if rnd.random() < 0.2:
            opts.append('-d ' + q(rnd.choice(['@@', '@', 'x'])))
        if rnd.random() < 0.2:
            opts.append('-i ' + rnd.choice(['2', '0', '-1']))
        if rnd.random() < 0.2:
            opts.append('-l ' + rnd.choice(['1', '2', '3']))
        if rnd.random() < 0.3:
            opts.append('-n ' + rnd.choice(['ln', 'rn', 'rz']))
        if rnd.random() < 0.2:
            opts.append('-p')
        if rnd.random() < 0.2:
            opts.append('-s ' + q(rnd.choice([':', ' ', '', '->'])))
        if rnd.random() < 0.2:
            opts.append('-v ' + rnd.choice(['0', '5', '-3']))
        if rnd.random() < 0.2:
            opts.append('-w ' + rnd.choice(['1', '3', '8']))
        pre, fs = src()
        return pre + 'nl' + (' ' + ' '.join(opts) if opts else '') + fs

    def ht_case(name):
        n = rnd.choice(['0', '1', '3', '10', '25', '1000', '2b', '1K', '1kB', ' 5'])
        sign = rnd.choice(['', '', '-', '+']) if name == 'head' else \
            rnd.choice(['', '', '+', '-'])
        opt = rnd.choice(['-n', '-c', '-n', '-n'])
        parts = [name]
        r = rnd.random()
        if r < 0.15 and sign == '':
            parts.append('-' + n.strip().rstrip('bKkB') if n.strip().isdigit() else '-n ' + n)
        elif r < 0.2:
            pass
        else:
            parts.append(opt + ' ' + q(sign + n))
        for o in ['-q', '-v', '-z']:
            if rnd.random() < 0.1:
                parts.append(o)
        pre, fs = src()
        return pre + ' '.join(parts) + fs

    def wc_case():
        opts = [o for o in ['-c', '-m', '-l', '-L', '-w'] if rnd.random() < 0.3]
        pre, fs = src()
        if rnd.random() < 0.2:
            fs = ' ' + ' '.join(files(3))
            pre = ''
        return pre + 'wc' + (' ' + ' '.join(opts) if opts else '') + fs

    def key():
        f1 = rnd.randint(1, 4)
        s = str(f1)
        if rnd.random() < 0.3:
            s += '.' + str(rnd.randint(1, 4))
        if rnd.random() < 0.4:
            s += ''.join(rnd.sample('bdfgiMhnrV', rnd.randint(1, 2)))
        if rnd.random() < 0.6:
            f2 = rnd.randint(f1, 5)
            s += ',' + str(f2)
            if rnd.random() < 0.3:
                s += '.' + str(rnd.randint(0, 4))
            if rnd.random() < 0.3:
                s += rnd.choice('bnrf')
        return s

    def sort_case():
        opts = [o for o in ['-b', '-d', '-f', '-i', '-r', '-s', '-u'] if rnd.random() < 0.15]
        kind = rnd.choice(['', '', '', '-n', '-g', '-h', '-M', '-V'])
        if kind:
            opts.append(kind)
        if rnd.random() < 0.3:
            opts.append('-t ' + q(rnd.choice(['\t', ',', ' ', ':', '.'])))
        for _ in range(rnd.choice([0, 0, 1, 1, 2])):
            opts.append('-k ' + key())
        r = rnd.random()
        if r < 0.06:
            opts.append(rnd.choice(['-c', '-C']))
            return 'sort ' + ' '.join(opts) + ' ' + rnd.choice(TEXT)
        if r < 0.1:
            opts.append('-m')
        if rnd.random() < 0.05:
            opts.append('-z')
        pre, fs = src()
        return pre + 'sort' + (' ' + ' '.join(opts) if opts else '') + fs

    def uniq_case():
        opts = [o for o in ['-c', '-d', '-D', '-i', '-u', '-z'] if rnd.random() < 0.2]
        if '-D' in opts and '-c' in opts:
            opts.remove('-c')
        if rnd.random() < 0.1 and '-c' not in opts:
            opts = [o for o in opts if o not in ('-D',)]
            opts.append('--all-repeated=' + rnd.choice(['none', 'prepend', 'separate']))
            opts = [o for o in opts if o != '-c']
        if rnd.random() < 0.1 and not any(o in opts for o in ('-c', '-d', '-D', '-u')) and \
                not any(o.startswith('--all') for o in opts):
            opts.append('--group=' + rnd.choice(['separate', 'prepend', 'append', 'both']))
        for o in ['-f', '-s', '-w']:
            if rnd.random() < 0.15:
                opts.append(o + ' ' + str(rnd.randint(0, 3)))
        f = rnd.choice(['dups.txt', 'dups.txt', 'words.txt', 'noeol.txt', 'crlf.txt',
                        'nums.txt', 'blank.txt', 'empty.txt', 'utf8.txt'])
        if rnd.random() < 0.3:
            return 'sort ' + f + ' | uniq' + (' ' + ' '.join(opts) if opts else '')
        if rnd.random() < 0.2:
            return 'cat ' + f + ' | uniq' + (' ' + ' '.join(opts) if opts else '')
        return 'uniq' + (' ' + ' '.join(opts) if opts else '') + ' ' + f

    def cutlist():
        items = []
        for _ in range(rnd.randint(1, 3)):
            a = rnd.randint(1, 6)
            r = rnd.random()
            if r < 0.4:
                items.append(str(a))
            elif r < 0.6:
                items.append('%d-%d' % (a, a + rnd.randint(0, 4)))
            elif r < 0.8:
                items.append('%d-' % a)
            else:
                items.append('-%d' % a)
        return ','.join(items)

    def cut_case():
        mode = rnd.choice(['-f', '-f', '-b', '-c'])
        opts = [mode + ' ' + cutlist()]
        if mode == '-f':
            if rnd.random() < 0.6:
                opts.append('-d ' + q(rnd.choice([',', '\t', ' ', ':', 'a'])))
            if rnd.random() < 0.2:
                opts.append('-s')
        if rnd.random() < 0.15:
            opts.append('--complement')
        if rnd.random() < 0.15:
            opts.append('--output-delimiter=' + q(rnd.choice(['|', '::', ' '])))
        if rnd.random() < 0.05:
            opts.append('-z')
        pre, fs = src()
        return pre + 'cut ' + ' '.join(opts) + fs

    def grep_case():
        syn, pat = rnd.choice(GREP_PATTERNS)
        opts = []
        if syn != 'G' or rnd.random() < 0.1:
            opts.append('-' + syn)
        for o in ['-i', '-v', '-w', '-x', '-c', '-o', '-n', '-b', '-h', '-H', '-s', '-T',
                  '-l', '-L', '-q', '-Z', '-z', '-a', '-I', '-y']:
            if rnd.random() < 0.07:
                opts.append(o)
        if rnd.random() < 0.1:
            opts.append('-m ' + str(rnd.randint(0, 3)))
        if rnd.random() < 0.12:
            opts.append(rnd.choice(['-A', '-B', '-C']) + ' ' + str(rnd.randint(0, 2)))
        if rnd.random() < 0.03:
            opts.append('-' + str(rnd.randint(1, 2)))
        if rnd.random() < 0.05:
            opts.append('--no-group-separator')
        if rnd.random() < 0.05:
            opts.append('--group-separator=' + q('=='))
        if rnd.random() < 0.03:
            opts.append('--label=' + q('in'))
        if rnd.random() < 0.1:
            s2, p2 = rnd.choice([x for x in GREP_PATTERNS if x[0] == syn])
            patpart = '-e ' + q(pat) + ' -e ' + q(p2)
        else:
            patpart = q(pat) if not pat.startswith('-') else '-e ' + q(pat)
        pool = TEXT + ['big.txt'] * 2
        pre, fs = src(pool)
        return pre + 'grep ' + ' '.join(opts + [patpart]) + fs

    def jq_case():
        filt = rnd.choice(JQ_FILTERS)
        opts = []
        for o in ['-r', '-j', '-c', '-S', '-a', '-s', '-n', '-C', '--tab', '--seq']:
            if rnd.random() < 0.08:
                opts.append(o)
        if ('-j' in opts or '-r' in opts) and '-a' in opts:
            opts.remove('-a')  # jq 1.6 aborts: a documented difference of its own
        if rnd.random() < 0.05:
            opts.append('--indent ' + str(rnd.randint(0, 7)))
        if rnd.random() < 0.05:
            opts.append('-R')
        if rnd.random() < 0.05:
            opts.append('--stream')
        if rnd.random() < 0.05:
            opts.append('--arg v ' + q(rnd.choice(['x', 'é', ''])))
            filt = rnd.choice(['$v', '. as $d | $v', '[$v, .]?'])
        if rnd.random() < 0.03:
            opts.append('--argjson v ' + q(rnd.choice(['{"a":1}', '[1,2]', '3'])))
            filt = '$v'
        pre, fs = src(JSON)
        if rnd.random() < 0.15:
            fs = ' ' + ' '.join(files(2, JSON))
            pre = ''
        return pre + 'jq ' + ' '.join(opts + [q(filt)]) + fs

    gens = [(cat_case, 6), (nl_case, 6), (lambda: ht_case('head'), 7),
            (lambda: ht_case('tail'), 7), (wc_case, 6), (sort_case, 14), (uniq_case, 7),
            (cut_case, 8), (grep_case, 24), (jq_case, 12)]
    total = sum(w for _, w in gens)
    singles = int(n * 0.8)
    for _ in range(singles):
        r = rnd.uniform(0, total)
        for g, w in gens:
            r -= w
            if r <= 0:
                add(g())
                break
    # pipelines of two to four stages
    tails = ['sort', 'sort -u', 'sort -rn', 'uniq -c', 'wc -l', 'wc', 'head -n 3',
             'tail -n 2', 'cut -c 1-5', 'nl', 'cat -A', 'grep -c a', 'grep -v e',
             'sort | uniq -c | sort -rn', 'head -n 5 | tail -n 2', 'cut -f 1 | sort -u',
             'grep -o "[a-z]*" | sort | uniq -c', 'jq -R . | head -n 3',
             "jq -R -s 'split(\"\\n\") | length'", 'uniq', 'tail -c 10', 'head -c 20']
    while len(cases) < n:
        base = rnd.choice([cat_case, grep_case, sort_case, cut_case, nl_case, jq_case,
                           lambda: ht_case('head'), lambda: ht_case('tail')])()
        if ' -z' in base or 'big.txt' in base or 'long.txt' in base or 'nul.txt' in base:
            # what grep reads from a pipe is cut where the pipe happened to be: no NUL there
            continue
        add(base + ' | ' + rnd.choice(tails))
    for c in documented(rnd):
        cases.append(c)
    return cases


def documented(rnd):
    """Pipelines whose difference is a row of ai-exec(1)'s table: what ai-exec gives
    (status, standard output, a piece of its messages) and what GNU gives that is not
    the same (its status, its output or its messages: 'differs')."""
    out = []

    def d(cmd, row, code, stdout='', stderr=None, differs='status', gnu=True):
        out.append({'cmd': cmd, 'tag': {'row': row, 'code': code, 'stdout': stdout,
                                        'stderr': stderr, 'differs': differs, 'gnu': gnu}})

    for f in ['log.txt', 'words.txt']:
        d('grep -r a ' + f, 'grep', 77, stderr="option '-r'")
        d("grep '\\(a\\)\\1' " + f, 'grep', 77, stderr='back-reference')
        d("grep -E '(o)\\1' " + f, 'grep', 77, stderr='back-reference')
        d('grep -P "a+" ' + f, 'grep', 77)
        d('grep -f ' + f + ' ' + f, 'grep', 77)
        d('grep --include=x a ' + f, 'grep', 77)
        d('grep --color=always a ' + f, 'grep', 77)
        d('sort -R ' + f, 'sort', 77)
        d('sort -o out ' + f, 'sort', 77)
        d('sort -T /tmp ' + f, 'sort', 77)
        # GNU would wait for the file to grow: not run
        d('tail -f ' + f, 'tail', 77, gnu=False)
        d('tail -s 1 ' + f, 'tail', 77)
        d('wc --files0-from=' + f, 'uniq, wc', 77)
        d('uniq ' + f + ' out', 'uniq, wc', 77)
        d('cat - ' + f, 'FILE operands', 65)
        d('cat nosuch.txt ' + f, 'FILE operands', 77, stderr='not allowed')
        d('grep --ignore-c a ' + f, 'options', 77)
        d('sort --help', 'options', 77)
        d('grep --version', 'options', 77)
    for f in ['j1.json', 'j2.ndjson']:
        n = 1 if f == 'j1.json' else 9
        d('jq -c env ' + f, 'jq', 0, '{}\n' * n, differs='stdout')
        d("jq -c '$ENV' " + f, 'jq', 0, '{}\n' * n, differs='stdout')
        d('jq input_filename ' + f, 'jq', 0, 'null\n' * n, differs='stdout')
        d('jq -f ' + f + ' ' + f, 'jq', 77)
        d('jq -e . ' + f, 'jq', 77)
        d('jq --slurpfile x ' + f + ' . ' + f, 'jq', 77)
    d("jq -n 'import \"a\" as a; 1'", 'jq', 65)
    d("jq -n 'include \"a\"; 1'", 'jq', 65)
    # jq 1.6 corrupts its heap and aborts here (-a with -r); ai-exec prints what jq means to
    d("jq -r -a -S 'if type == \"object\" then .name else . end' jnum.json jstr.json",
      'jq', 0, '1\n2.5\n-3\n1000\n1e+20\n0.1\n-0\n1\n' +
      r'"plain"' + '\n' + r'"with \"quote\""' + '\n' + r'"\u00e9"' + '\n' +
      r'"tab\t"' + '\n""\n' + r'"\ud83d\ude00"' + '\n', differs='stdout')
    # jq's status is its last input's; a shell's is its last stage's
    d('jq -r ".[] | error" j3.json', 'exit status', 1, stderr='jq: error (at j3.json:1)')
    d('jq ".a + 1" j2.ndjson | head -n 1', 'exit status', 1, '2\n')
    d('jq -c ".a / 0" j2.ndjson | wc -l', 'exit status', 1, '0\n')
    # GNU runs the stages it can; ai-exec runs none
    d('grep -E "(" log.txt | wc -l', 'a refused command', 65, stderr='Unmatched ( or')
    d('cat log.txt | sort -n -g', 'a refused command', 65, stderr='incompatible')
    d('head -n x one.txt | wc -c', 'a refused command', 65)
    # the same output and status, other words on standard error
    d('jq . jbad.json', 'messages', 1, '{\n  "a": 1\n}\n{\n  "a": 2\n}\n',
      stderr='jq: parse error: Invalid numeric literal', differs='stderr')
    d('grep -A x a one.txt', 'messages', 65, stderr="invalid context length argument: 'x'",
      differs='stderr')
    return out


def man_rows(path):
    """The rows of the table of differences in ai-exec(1), as plain words."""
    rows, inside = [], False
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if line.startswith('.Ss '):
            inside = line == '.Ss Differences from GNU'
        elif inside and line == '.El':
            break
        elif inside and line.startswith('.It '):
            words = [w for w in line[4:].split() if w not in ('Cm', 'Ar', 'No', 'Fl', 'Ql')]
            rows.append(' '.join(words).replace(' ,', ','))
    return rows


# ---------------------------------------------------------------- running

def run_gnu(workdir, cases, env, jobs):
    """Run the cases through bash and the GNU tools, a few scripts of many cases each
    (a shell per case would cost most of the test's time): for each case its standard
    output, the statuses of its stages and its standard error (None, [], b'' when not run)."""
    outdir = workdir.rstrip('/') + '.gnu'
    os.makedirs(outdir, exist_ok=True)
    todo = [i for i, c in enumerate(cases) if c['tag'] is None or c['tag']['gnu']]
    scripts = []
    for k in range(jobs):
        lines = ['cd %s || exit 1' % q(workdir), 'exec </dev/null']
        for i in todo[k::jobs]:
            o = os.path.join(outdir, str(i))
            lines.append('{ %s\nst="${PIPESTATUS[*]}"; } >%s.out 2>%s.err; echo "$st" >%s.st' %
                         (cases[i]['cmd'], q(o), q(o), q(o)))
        script = os.path.join(outdir, 'script%d.sh' % k)
        with open(script, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        scripts.append(script)
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        list(ex.map(lambda sc: subprocess.run(['bash', sc], env=env, timeout=600,
                                              stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL), scripts))
    res = [(None, [], b'')] * len(cases)
    for i in todo:
        o = os.path.join(outdir, str(i))
        try:
            with open(o + '.st') as f:
                statuses = [int(x) for x in f.read().split()]
            with open(o + '.out', 'rb') as f:
                out = f.read()
            with open(o + '.err', 'rb') as f:
                err = f.read()
        except OSError:
            raise SystemExit('bash did not run the case %r' % cases[i]['cmd'])
        res[i] = (out, statuses, err)
    return res


def jsonable(b):
    """ai-exec carries these bytes as they are in a record."""
    if b'\x00' in b:
        return False
    try:
        b.decode('utf-8')
        return True
    except UnicodeDecodeError:
        return False


def stage_names(cmd):
    # the first word of each stage (the generated commands quote no '|')
    names = []
    for part in re.split(r"\|(?=(?:[^']*'[^']*')*[^']*$)", cmd):
        w = part.strip().split()
        names.append(w[0] if w else '')
    return names


def gnu_failed(case, statuses, err):
    """Whether some stage of the GNU pipeline reported an error."""
    names = stage_names(case['cmd'])
    if re.search(rb'(^|\n)(jq: error|parse error)', err):
        return True
    for name, st in zip(names, statuses):
        if st == 141:
            continue  # SIGPIPE: the next stage had what it wanted
        if name == 'grep' and st >= 2:
            return True
        if name == 'jq' and st not in (0,):
            return True
        if name in ('cat', 'nl', 'head', 'tail', 'wc', 'uniq', 'cut') and st != 0:
            return True
        if name == 'sort' and st != 0 and not re.search(r'(^|\s)-[a-zA-Z]*[cC]', case['cmd']):
            return True
        if name == 'sort' and st >= 2:
            return True
    return False


def check_documented(tag, rows, code, text, err, gout, statuses, gerr):
    """None when ai-exec gives what the row says and GNU does give something else."""
    if tag['row'] not in rows:
        return 'tagged %r, which is no row of ai-exec(1)' % tag['row']
    if code != tag['code'] or text != tag['stdout'].encode():
        return 'documented as %s (%d %r), got %d %r' % (tag['row'], tag['code'], tag['stdout'],
                                                        code, text[:200])
    if tag['stderr'] is not None and tag['stderr'] not in err:
        return 'documented as %s: messages %r, got %r' % (tag['row'], tag['stderr'], err)
    if gout is None:
        return None
    same = {'status': statuses[-1] == code, 'stdout': gout == text,
            'stderr': gerr.decode('utf-8', 'replace') == err}[tag['differs']]
    if same:
        return 'documented as %s: its %s should differ from GNU, but GNU gives the same' % (
            tag['row'], tag['differs'])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('workdir')
    ap.add_argument('--seed', type=int, default=15)
    ap.add_argument('--cases', type=int, default=4000)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--show', type=int, default=20)
    ap.add_argument('--only', default=None, help='run only commands containing this')
    ap.add_argument('--man', default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  '..', '..', 'man', 'ai-exec.1'))
    a = ap.parse_args()
    rows = man_rows(a.man)
    if not rows:
        print('no table of differences in %s' % a.man)
        return 1
    rnd = random.Random(a.seed)
    os.makedirs(a.workdir, exist_ok=True)
    files = make_files(a.workdir, rnd)
    cases = gen_cases(rnd, a.cases)
    if a.only:
        cases = [c for c in cases if a.only in c['cmd']]
    env = {'PATH': '/usr/local/bin:/usr/bin:/bin', 'LC_ALL': 'C', 'HOME': a.workdir}

    gnu = run_gnu(a.workdir, cases, env, a.jobs)

    fileargs = []
    for name in sorted(files):
        fileargs += ['--file', name]
    limits = ['--max-size', '16777216', '--max-output', '67108864', '--timeout', '60',
              '--max-cpu', '30']
    calls = []
    for i, c in enumerate(cases):
        calls.append(json.dumps({'type': 'tool_call', 'id': str(i), 'name': 'execute',
                                 'arguments': {'command': c['cmd'], 'size': 16777216}}))
    p = subprocess.run(['ai-exec', '--serve', '--cache', '0'] + limits + fileargs,
                       input=('\n'.join(calls) + '\n').encode(), cwd=a.workdir,
                       capture_output=True, env=dict(env, PATH=os.environ['PATH']))
    recs = [json.loads(line) for line in p.stdout.decode().splitlines()]
    if len(recs) != len(cases):
        print('ai-exec --serve answered %d of %d calls (status %d): %s' %
              (len(recs), len(cases), p.returncode, p.stderr.decode()[-2000:]))
        return 1

    def ours_raw(c):
        q = subprocess.run(['ai-exec', '--size', '16777216'] + limits + fileargs + [c['cmd']],
                           cwd=a.workdir,
                           capture_output=True, env=dict(env, PATH=os.environ['PATH']))
        return q.stdout

    identical = documented_ok = 0
    bad = []
    for c, (gout, statuses, gerr), r in zip(cases, gnu, recs):
        code = r['exit_code']
        text = r['stdout_text'].encode()
        if gout is not None and not jsonable(gout) and code not in (65, 77, 3):
            text = ours_raw(c)
        tag = c['tag']
        if tag is not None:
            why = check_documented(tag, rows, code, text, r.get('stderr_text', ''),
                                   gout, statuses, gerr)
            if why is None:
                documented_ok += 1
            else:
                bad.append((c, why))
            continue
        failed = gnu_failed(c, statuses, gerr)
        if code in (65, 77, 3):
            if failed and text == b'':
                identical += 1
            else:
                bad.append((c, 'refused (%d: %s) where GNU ran (statuses %s): %r' % (
                    code, r.get('error'), statuses, gout[:200])))
            continue
        want = 1 if failed else statuses[-1]
        if text == gout and code == want:
            identical += 1
        else:
            k = next((i for i in range(min(len(text), len(gout))) if text[i] != gout[i]),
                     min(len(text), len(gout)))
            bad.append((c, 'exit %d (GNU %s, want %d)%s%s' % (
                code, statuses, want,
                '' if text == gout else '\n    at byte %d of %d/%d\n    GNU:  %r\n    ours: %r' % (
                    k, len(gout), len(text), gout[max(0, k - 150):k + 150],
                    text[max(0, k - 150):k + 150]),
                '' if r['ok'] or code == want else '\n    error: %s' % r.get('error'))))
    used = set(c['tag']['row'] for c in cases if c['tag'] is not None)
    for row in rows:
        if row not in used and not a.only:
            bad.append(({'cmd': '(none)'}, 'no pipeline shows the row %r of ai-exec(1)' % row))
    for c, why in bad[:a.show]:
        print('MISMATCH: %s\n    %s' % (c['cmd'], why))
    print('%d pipelines: %d identical, %d documented differences, %d mismatches' %
          (len(cases), identical, documented_ok, len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
