#!/usr/bin/env python3
"""Run a command with a pseudo-terminal as its controlling terminal, and
answer the questions it asks there.

    on-tty.py [--answer TEXT]... [--stdin FILE] [--stdout FILE] [--stderr FILE]
           [--background] [--transcript FILE] -- CMD [ARG]...

The command's standard streams are the terminal unless redirected to files
(--stdin, --stdout, --stderr), so that a test can give ai-exec tool calls on
a pipe-like file while the question goes to /dev/tty.  Each time the
terminal shows "[y/N] ", the next --answer is typed, followed by Enter; with
no answer left, end of file (Ctrl-D) is typed.  With --background the
command runs in a process group of its own, not the terminal's foreground
one.  Everything the terminal showed goes to --transcript (default: this
program's standard output).  The exit status is the command's (128 + the
signal that ended it).  Nothing waits more than 20 seconds.
"""
import os
import pty
import select
import sys
import time


def main(argv):
    answers, redirect, background, transcript = [], {}, False, None
    i = 1
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a == "--answer":
            answers.append(argv[i + 1])
            i += 2
        elif a in ("--stdin", "--stdout", "--stderr"):
            redirect[a[2:]] = argv[i + 1]
            i += 2
        elif a == "--background":
            background = True
            i += 1
        elif a == "--transcript":
            transcript = argv[i + 1]
            i += 2
        else:
            sys.exit("on-tty.py: unknown option " + a)
    cmd = argv[i + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        for name, target, flags in (("stdin", 0, os.O_RDONLY),
                                    ("stdout", 1, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                    ("stderr", 2, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            if name in redirect:
                f = os.open(redirect[name], flags, 0o644)
                os.dup2(f, target)
                os.close(f)
        if background:
            child = os.fork()
            if child == 0:
                os.setpgid(0, 0)
                os.execvp(cmd[0], cmd)
            _, status = os.waitpid(child, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xff
                     if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        os.execvp(cmd[0], cmd)
    seen = b""
    shown = 0
    status = None
    deadline = time.time() + 20
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                # EIO: no one holds the terminal open right now (the command's
                # streams are files until it opens /dev/tty); it may yet
                data = b""
            if not data:
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = st
                    break
                time.sleep(0.02)
                continue
            seen += data
            while seen.count(b"[y/N] ") > shown:
                shown += 1
                if answers:
                    os.write(fd, answers.pop(0).encode() + b"\n")
                else:
                    os.write(fd, b"\x04")
        else:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                break
    else:
        os.kill(pid, 9)
    if status is None:
        _, status = os.waitpid(pid, 0)
    out = seen.decode("utf-8", "replace").replace("\r\n", "\n")
    if transcript:
        with open(transcript, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
