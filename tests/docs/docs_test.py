#!/usr/bin/env python3
"""docs_test.py — the documentation cannot go stale: every link, every source reference and every runnable
command of README.md and docs/**/*.md is checked against the tree it describes.

    tests/docs/docs_test.py ROOT [ATTNLAB]    check ROOT's pages; with ATTNLAB (the built command), also run the
                                              runnable blocks of docs/course/ and docs/guide/ in a scratch folder
    tests/docs/docs_test.py ROOT ATTNLAB --update
                                              run them, and rewrite each output block that no longer matches with
                                              today's output (keeping its `…` lines): review the diff, then commit
    tests/docs/docs_test.py ROOT ATTNLAB --work DIR
                                              run them in DIR (new, and kept: the runs the pages trained are there)
    tests/docs/docs_test.py --self-test       prove that each check fails when what it guards breaks: a copy of
                                              the real tree in which a referenced source line has moved, and small
                                              made-up trees for the other checks

What a page may write, and what is checked (the conventions are also in docs/README.md):

  links          [text](relative/path) and ![alt](relative/path), optionally with #anchor: the file or folder
                 must exist, and an anchor into a Markdown page must be one of its headings (GitHub's slugs).
                 http(s) and mailto links are not fetched.
  file           a code span naming a path in the tree, `src/attention/scaled_dot.cpp` (paths start with src/,
                 tests/, tools/, configs/, data/, cmake/, docs/ or .ci/, from the top of the tree); the same
                 paths in prose and in sh blocks (src, tests, tools, configs, cmake only there). A span with
                 a pattern in it (* { } < >) is not a path.
  line           [label](path#L60) `text on line 60`: a link to a line of a source file, followed by a code span
                 quoting (part of) that line. The line must still contain the quote; when it does not, the page,
                 the reference and where the text is now are named. A label that names a line (file.cpp:60) must
                 name the link's line. A bare `file.cpp:60`, or "line 60" in prose, cannot be checked and is
                 refused: write it as a line reference.
  function       [`Name()`](path) or [`Class::name()`](path), and `path` `name()`: the file must define or
                 call name(; Class::name must be the class's: Class::name( in the file or its .h/.cpp twin, or
                 name( in the body of class/struct Class (or a value of enum Class).
  member         `Class::name` in a code span (Class CamelCase): some file under src/ defines it.
  bare files     `name.cpp` after a folder, or after a file of the same extension, in one paragraph
                 (`src/a/x.cpp`, `y.cpp`): it is in that folder; with neither, some file of the tree has the name.
  gdb sessions   a ```gdb block: every "N<TAB>source" line gdb prints must be line N of the file of the last
                 "at …/src/….cpp:N" frame, and every Class::function a break line or a frame names is defined
                 under src/.
  runnable       a ```sh runnable block (course and guide pages only) is run with bash -e -o pipefail in one
                 scratch folder shared by the pages in order (course pages by chapter, then the guides), where
                 configs/ and data/ are copies, tools/ is a link, and `attnlab` is the command under test. The
                 block must exit 0 (or N with `exit=N` in its info string), and each `# expect: TEXT` comment
                 line in it must appear in its output.
  output         a ```text block right after a runnable block (blank lines between at most) shows what it prints,
                 and is compared with its output today, line by line, like a doctest: each line must equal a line
                 of the output, in order and with none between, except that a line that is only `…` (or `⋮`)
                 stands for any number of lines, and `…` inside a line for any text. `tol=X` in the text block's
                 info string lets each number differ by X (`tol=X%`: by X percent): for numbers that depend on
                 the CPU's vector width. `width=AVX-512`: its numbers come from a model trained on those vectors,
                 and are compared only on a build whose `attnlab --version` names them (elsewhere the block is
                 shown, not compared: another width trains a slightly different model). `--update` rewrites the
                 blocks that no longer match (tools/course.sh).
  chapters       docs/course/ holds NN-chapter.md for each chapter of CMakeLists.txt's ATTNLAB_CHAPTERS, NN its
                 place in that order, and nothing else but its index; each at most 250 lines.

Prints one line per failure (page:line: what), then `docs: N passed, N failed`; exits 1 on any failure.
Plain python3, no packages.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP_FOLDERS = ("src", "tests", "tools", "configs", "data", "cmake", "docs", ".ci")
TOP_FILES = ("CMakeLists.txt", "CMakePresets.json", "README.md")
PATTERN_CHARS = set("*{}<>|$ ")
MAX_CHAPTER_LINES = 250
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"(!?)\[((?:[^\[\]`]|`[^`]*`|\[[^\]]*\])*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINE_ANCHOR = re.compile(r"^L(\d+)(?:-L(\d+))?$")
QUOTE_AFTER_LINK = re.compile(r"^\s*(?:[:—–-]\s*)?(`+)\s?(.+?)\s?\1", re.S)
BARE_LINE_REF = re.compile(r"(?<![\w/.-])((?:src|tests|tools|configs|cmake)/[\w./-]+\.\w+):(\d+)")
LINE_WORDS = re.compile(r"\blines? \d+", re.IGNORECASE)
PROSE_PATH = re.compile(r"(?<![\w/.`-])((?:src|tests|tools|configs|cmake)/[\w./-]*[\w/])")
NAME_CALL = re.compile(r"^([A-Za-z_][\w]*(?:::[~A-Za-z_][\w]*)*)\(\)$")
PATH_THEN_NAMES = re.compile(r"`([^`\s]+)`((?:\s*[,(]?\s*`[A-Za-z_][\w:~]*\(\)`\)?)+)")
GDB_FRAME = re.compile(r"\bat \S*?/?((?:src|tests|tools)/[\w./-]+):(\d+)\s*$")
GDB_SOURCE_LINE = re.compile(r"^(\d+)\t(.*)$")
# a function gdb names: "break Class::method", "Breakpoint 1 at 0x…: Class::method.", a frame "… Class::method (this=…"
GDB_BREAK = re.compile(r"^\(gdb\) (?:break|b|tbreak) ([A-Za-z_][\w:]*::[A-Za-z_~]\w*)\b")
GDB_FUNCTION = re.compile(r"(?:^|[\s,])attnlab::(?:[\w()]+(?: namespace\))?::)*?(\w+)::(\w+) \(")
BARE_SOURCE_NAME = re.compile(r"^[\w-]+\.(?:cpp|h|js|py|sh)$")
CLASS_MEMBER = re.compile(r"^([A-Z]\w*)::([a-z_~]\w*)(?:\(\))?$")


class Report:
    def __init__(self, quiet=False):
        self.passed = 0
        self.failures = []
        self.quiet = quiet

    def ok(self):
        self.passed += 1

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")
        if not self.quiet:
            print(f"FAIL {where}: {message}", flush=True)

    def check(self, condition, where, message):
        if condition:
            self.ok()
        else:
            self.fail(where, message)
        return condition


def collapse(text):
    return " ".join(text.split())


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def slug(heading):
    """GitHub's anchor for a heading: the text as rendered, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link shows its text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML shows nothing
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        names, seen = set(), {}
        in_fence = None
        for line in read_lines(path):
            m = FENCE.match(line)
            if m:
                marker = m.group(2)
                if in_fence is None:
                    in_fence = marker[0] * len(marker)
                elif marker.startswith(in_fence) and not m.group(3).strip():
                    in_fence = None
                continue
            if in_fence:
                continue
            h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if h:
                base = slug(h.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                names.add(base if n == 0 else f"{base}-{n}")
            for a in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                names.add(a.group(1))
        cache[path] = names
    return cache[path]


def split_page(lines):
    """Yields ('prose', first_number, text) for each paragraph (lines up to a blank line, joined by newlines, so
    that a code span or a link may run across a line break) and ('block', first_number, info, [lines]) for each
    fenced block, in page order."""
    i = 0
    paragraph, start = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                if not paragraph:
                    start = i + 1
                paragraph.append(lines[i])
            elif paragraph:
                yield ("prose", start, "\n".join(paragraph))
                paragraph = []
            i += 1
            continue
        if paragraph:
            yield ("prose", start, "\n".join(paragraph))
            paragraph = []
        marker, info = m.group(2), m.group(3).strip()
        first = i + 1
        body = []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if close and close.group(2).startswith(marker[0] * len(marker)) and not close.group(3).strip():
                break
            body.append(lines[i])
            i += 1
        i += 1
        yield ("block", first, info, body)
    if paragraph:
        yield ("prose", start, "\n".join(paragraph))


def is_tree_path(text):
    if text in TOP_FILES:
        return True
    first = text.split("/", 1)[0]
    return first in TOP_FOLDERS and "/" in text and not (set(text) & PATTERN_CHARS)


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def twins(full):
    """The header of a .cpp and the .cpp of a header: where a class's other half usually is."""
    stem, ext = os.path.splitext(full)
    return [stem + other for other in {".cpp": [".h"], ".h": [".cpp"]}.get(ext, [])]


def defines_member(text, cls, method):
    """Does `text` define cls::method out of line, declare/define method( in the body of class/struct cls, or
    list method among the values of enum cls?"""
    if re.search(r"\b" + re.escape(cls) + r"::" + re.escape(method) + r"\s*\(", text):
        return True
    for m in re.finditer(r"\benum\s+(?:class\s+)?" + re.escape(cls) + r"\b[^;{]*\{([^}]*)\}", text):
        if re.search(r"\b" + re.escape(method) + r"\b", re.sub(r"//[^\n]*", "", m.group(1))):
            return True
    for m in re.finditer(r"\b(?:class|struct)\s+" + re.escape(cls) + r"\b[^;{]*\{", text):
        depth, end = 0, m.end() - 1
        for end in range(m.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        if re.search(r"(?<![\w.>])" + re.escape(method) + r"\s*\(", text[m.end():end]):
            return True
    return False


class Checker:
    def __init__(self, root, report):
        self.root = os.path.abspath(root)
        self.report = report
        self._sources = None     # the text of every file under src/, read once (gdb function names)
        self._basenames = None   # the names of every file under src/, tests/, tools/, web/, exercises/ (bare names)

    # ---- helpers ---------------------------------------------------------------------------------------------
    def rel(self, path):
        return os.path.relpath(path, self.root)

    def inside_tree(self, full):
        return os.path.commonpath([os.path.abspath(full), self.root]) == self.root

    def tree_path_exists(self, text):
        path = text.rstrip("/")
        full = os.path.normpath(os.path.join(self.root, path))
        if not self.inside_tree(full):
            return False    # outside the tree: it may exist here, but not in a clone
        return os.path.isdir(full) if text.endswith("/") else os.path.exists(full)

    def check_line(self, where, file_rel, number, last, quote, label):
        full = os.path.join(self.root, file_rel)
        if not self.report.check(os.path.isfile(full), where, f"line reference {file_rel}#L{number}: no such file"):
            return
        lines = read_lines(full)
        m = re.search(r":(\d+)\b", label or "")
        if m and int(m.group(1)) != number:
            self.report.fail(where, f"line reference {file_rel}#L{number}: its label '{label}' names line {m.group(1)}")
            return
        if last is not None and not (number <= last <= len(lines)):
            self.report.fail(where, f"line reference {file_rel}#L{number}-L{last}: not a range of the file's "
                                    f"{len(lines)} lines")
            return
        want = collapse(quote)
        have = collapse(lines[number - 1]) if 1 <= number <= len(lines) else None
        if have is not None and want in have:
            self.report.ok()
            return
        now = [str(k + 1) for k, line in enumerate(lines) if want in collapse(line)]
        where_now = (f"the text is now on line {', '.join(now)}" if now else "the text is on no line of the file")
        shown = f"line {number} is `{have}`" if have is not None else f"the file has {len(lines)} lines"
        self.report.fail(where, f"line reference {file_rel}#L{number} quotes `{quote}`, but {shown}; {where_now}")

    def check_function(self, where, file_rel, name):
        full = os.path.join(self.root, file_rel)
        if not self.report.check(os.path.isfile(full), where, f"function reference {name}() in {file_rel}: no such file"):
            return
        with open(full, encoding="utf-8") as f:
            text = f.read()
        parts = name.split("::")
        if len(parts) >= 2:             # Class::method: the class (in this file or its .h/.cpp twin) has the method
            texts = [text] + [read_text(twin) for twin in twins(full)]
            found = any(defines_member(t, parts[-2], parts[-1]) for t in texts)
            self.report.check(found, where, f"function reference {name}(): {parts[-2]} has no {parts[-1]}() in "
                                            f"{file_rel}")
            return
        found = re.search(r"(?<![\w])" + re.escape(parts[-1]) + r"\s*[(<]", text) is not None
        self.report.check(found, where, f"function reference {name}(): not in {file_rel}")

    def defined_in_tree(self, cls, method):
        """Is Class::method defined (out of line, or in the class's body) in any source file under src/?"""
        if self._sources is None:
            self._sources = []
            for top, _, files in os.walk(os.path.join(self.root, "src")):
                for f in files:
                    if f.endswith((".cpp", ".h")):
                        self._sources.append(read_text(os.path.join(top, f)))
        return any(defines_member(t, cls, method) for t in self._sources)

    def file_beside_folder(self, where, folder, name):
        """A bare file name listed after a path: it must be in that path's folder (or, with none, in the tree)."""
        if folder is not None:
            full = os.path.normpath(os.path.join(self.root, folder, name))
            self.report.check(self.inside_tree(full) and os.path.isfile(full), where,
                              f"`{name}`: listed beside {folder}/, but there is no {folder}/{name}")
            return
        if self._basenames is None:
            self._basenames = set()
            for top_name in ("src", "tests", "tools", "web", "exercises"):
                for _, _, files in os.walk(os.path.join(self.root, top_name)):
                    self._basenames.update(files)
        self.report.check(name in self._basenames, where, f"`{name}`: no file of that name in the tree")

    # ---- one page --------------------------------------------------------------------------------------------
    def check_page(self, page):
        page_rel = self.rel(page)
        page_dir = os.path.dirname(page)
        lines = read_lines(page)
        for part in split_page(lines):
            if part[0] == "prose":
                self.check_prose(page_rel, page_dir, part[1], part[2])
            else:
                self.check_block(page_rel, part[1], part[2], part[3])

    def check_prose(self, page_rel, page_dir, number, text):
        """One paragraph: `text` holds its lines joined by newlines, the first of them line `number` of the page."""
        def at(offset):
            return f"{page_rel}:{number + text.count(chr(10), 0, offset)}"

        code = [(m.start(), m.end()) for m in CODE_SPAN.finditer(text)]

        def in_code(offset):            # inside a code span (not at its start): shown, not followed
            return any(a < offset < b for a, b in code)

        checked_spans = []   # character ranges already accounted for (links and their quotes)
        for m in LINK.finditer(text):
            if in_code(m.start()):
                continue
            where = at(m.start())
            label, target = m.group(2), m.group(3)
            checked_spans.append((m.start(), m.end()))
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):        # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(page_dir, path)) if path else os.path.join(self.root, page_rel)
            if not self.report.check(os.path.exists(full), where, f"link {target}: no such file or folder"):
                continue
            if not self.inside_tree(full):
                self.report.fail(where, f"link {target}: points outside the tree")
                continue
            file_rel = self.rel(full)
            line_anchor = LINE_ANCHOR.match(anchor) if anchor else None
            if line_anchor and not full.endswith(".md"):
                quote = QUOTE_AFTER_LINK.match(text[m.end():])
                if not quote:
                    self.report.fail(where, f"line reference {target}: no `quoted text` after it to check the line against")
                    continue
                checked_spans.append((m.end(), m.end() + quote.end()))
                first = int(line_anchor.group(1))
                last = int(line_anchor.group(2)) if line_anchor.group(2) else None
                self.check_line(where, file_rel, first, last, collapse(quote.group(2)), label.replace("`", ""))
            elif anchor:
                if full.endswith(".md"):
                    self.report.check(anchor in anchors_of(full), where, f"link {target}: no heading #{anchor} in {file_rel}")
                else:
                    self.report.fail(where, f"link {target}: an anchor into a file that is not a page (use #L<n> for a line)")
            else:
                self.report.ok()
            label = label.strip()
            if label.startswith("`") and label.endswith("`"):
                call = NAME_CALL.match(label.strip("`"))
                if call and os.path.isfile(full) and not full.endswith(".md"):
                    self.check_function(where, file_rel, call.group(1))

        def unchecked(start, end):
            return not any(a <= start and end <= b for a, b in checked_spans)

        # `path` `name()` pairs
        for m in PATH_THEN_NAMES.finditer(text):
            path = m.group(1)
            if is_tree_path(path) and unchecked(m.start(), m.end()) and not in_code(m.start()):
                for name in re.findall(r"`([A-Za-z_][\w:~]*)\(\)`", m.group(2)):
                    self.check_function(at(m.start()), path, name)
        # code spans naming files, and bare line references inside them
        for m in CODE_SPAN.finditer(text):
            if not unchecked(m.start(), m.end()):
                continue
            where = at(m.start())
            content = collapse(m.group(2))
            bare = BARE_LINE_REF.search(content)
            if bare:
                self.report.fail(where, f"`{content}`: a line number nobody checks; write it as "
                                        f"[{bare.group(1)}:{bare.group(2)}](…#L{bare.group(2)}) `text on that line`")
                continue
            if is_tree_path(content):
                self.report.check(self.tree_path_exists(content), where, f"`{content}`: no such file or folder")
        # `Class::method` in a code span (a class of attnlab, named CamelCase): some file under src/ defines it
        for m in CODE_SPAN.finditer(text):
            member = CLASS_MEMBER.match(collapse(m.group(2)))
            if member and unchecked(m.start(), m.end()) and not in_code(m.start()):
                self.report.check(self.defined_in_tree(member.group(1), member.group(2)), at(m.start()),
                                  f"`{collapse(m.group(2))}`: no file under src/ defines {member.group(1)}::"
                                  f"{member.group(2)}")
        # bare file names (`name.cpp`) listed after a path of the same paragraph: in that path's folder
        paths = [(m.start(), collapse(m.group(2))) for m in CODE_SPAN.finditer(text)
                 if is_tree_path(collapse(m.group(2))) and "/" in collapse(m.group(2))]
        for m in CODE_SPAN.finditer(text):
            content = collapse(m.group(2))
            if not BARE_SOURCE_NAME.match(content) or not unchecked(m.start(), m.end()) or in_code(m.start()):
                continue
            # the path just before it, when it is a folder or a file of the same kind (`src/x/a.cpp`, `b.cpp`)
            before = [p for start, p in paths if start < m.start()]
            folder = None
            if before:
                last = before[-1].rstrip("/")
                if before[-1].endswith("/") or os.path.isdir(os.path.join(self.root, last)):
                    folder = last
                elif os.path.splitext(last)[1] == os.path.splitext(content)[1]:
                    folder = os.path.dirname(last)
            self.file_beside_folder(at(m.start()), folder, content)
        # prose outside code spans and links (blanked, line breaks kept, so offsets still give line numbers)
        prose = text
        for m in list(CODE_SPAN.finditer(text)) + list(LINK.finditer(text)):
            blank = re.sub(r"[^\n]", " ", text[m.start():m.end()])
            prose = prose[:m.start()] + blank + prose[m.end():]
        for m in BARE_LINE_REF.finditer(prose):
            self.report.fail(at(m.start()), f"{m.group(0)}: a line number nobody checks; write it as a line reference")
        for m in LINE_WORDS.finditer(prose):
            self.report.fail(at(m.start()), f"'{m.group(0)}': a line number nobody checks; write it as a line reference")
        for m in PROSE_PATH.finditer(prose):
            path = m.group(1)
            if not BARE_LINE_REF.match(prose, m.start()):
                self.report.check(self.tree_path_exists(path) or self.tree_path_exists(path.rstrip(".")), at(m.start()),
                                  f"{path}: no such file or folder")

    def check_block(self, page_rel, first, info, body):
        words = info.split()
        kind = words[0] if words else ""
        if kind == "gdb":
            current = None
            for k, line in enumerate(body):
                where = f"{page_rel}:{first + 1 + k}"
                named = GDB_BREAK.match(line) or GDB_FUNCTION.search(line)
                if named:
                    cls, method = named.group(1).split("::")[-2:] if named.re is GDB_BREAK else named.groups()
                    self.report.check(self.defined_in_tree(cls, method), where,
                                      f"gdb names {cls}::{method}, which no file under src/ defines")
                frame = GDB_FRAME.search(line)
                if frame:
                    current = frame.group(1)
                    continue
                source = GDB_SOURCE_LINE.match(line)
                if source and current:
                    self.check_line(where, current, int(source.group(1)), None, source.group(2).strip(), None)
        elif kind in ("sh", "bash"):
            for k, line in enumerate(body):
                where = f"{page_rel}:{first + 1 + k}"
                code = line.split(" #", 1)[0]
                for token in re.findall(r"(?<![\w/.$-])((?:src|tests|tools|configs|cmake)/[^\s'\";|&)]+)", code):
                    token = token.rstrip(".,")
                    if set(token) & PATTERN_CHARS:
                        continue
                    self.report.check(self.tree_path_exists(token), where, f"{token}: no such file or folder")

    # ---- the chapter order -----------------------------------------------------------------------------------
    def check_chapters(self):
        cmake = os.path.join(self.root, "CMakeLists.txt")
        course = os.path.join(self.root, "docs", "course")
        if not os.path.isfile(cmake) or not os.path.isdir(course):
            return
        m = re.search(r"^set\(ATTNLAB_CHAPTERS ([^)]*)\)", open(cmake, encoding="utf-8").read(), re.M)
        if not self.report.check(m is not None, "CMakeLists.txt", "no line set(ATTNLAB_CHAPTERS …)"):
            return
        expected = [f"{i:02d}-{c}.md" for i, c in enumerate(m.group(1).split())]
        present = sorted(f for f in os.listdir(course) if f.endswith(".md") and f != "README.md")
        self.report.check(present == expected, "docs/course/",
                          f"the pages are {present}, but the chapter order (CMakeLists.txt) asks for {expected}")
        for name in present:                            # a chapter a learner can hold: its core, not a research log
            lines = len(read_lines(os.path.join(course, name))) - 1
            self.report.check(lines <= MAX_CHAPTER_LINES, f"docs/course/{name}",
                              f"{lines} lines: a chapter page has at most {MAX_CHAPTER_LINES}; move measurements and "
                              f"long asides to a guide page (docs/guide/) and link it")

    # ---- everything static -----------------------------------------------------------------------------------
    def pages(self):
        found = []
        readme = os.path.join(self.root, "README.md")
        if os.path.isfile(readme):
            found.append(readme)
        docs = os.path.join(self.root, "docs")
        for folder, subfolders, files in os.walk(docs):
            subfolders.sort()
            found += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".md")]
        return found

    def check_all(self):
        for page in self.pages():
            self.check_page(page)
        self.check_chapters()


# ---- runnable blocks ---------------------------------------------------------------------------------------------
def runnable_blocks(root):
    """(page_rel, line, info words, body, shown) for every runnable block, course pages by chapter, then the guides;
    shown is its output block (first line, info words, lines), or None."""
    blocks = []
    for folder in ("course", "guide"):
        path = os.path.join(root, "docs", folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith(".md"):
                continue
            page = os.path.join(path, name)
            lines = read_lines(page)
            parts = list(split_page(lines))
            for k, part in enumerate(parts):
                if part[0] == "block":
                    words = part[2].split()
                    if words and words[0] in ("sh", "bash") and "runnable" in words[1:]:
                        blocks.append((os.path.relpath(page, root), part[1], words, part[3],
                                       output_block(lines, part, parts[k + 1] if k + 1 < len(parts) else None)))
    return blocks


# ---- output blocks, compared like doctests ------------------------------------------------------------------------
ELLIPSIS_LINES = ("…", "⋮")
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def output_block(lines, block, following):
    """The ```text block that shows what `block` prints: the next part of the page, with only blank lines between."""
    if following is None or following[0] != "block" or not following[2].split()[:1] == ["text"]:
        return None
    end = block[1] + len(block[3]) + 1                 # the runnable block's closing fence, 1-based
    if any(l.strip() for l in lines[end:following[1] - 1]):
        return None
    return (following[1], following[2].split(), following[3])


def width_of(words):
    """width=AVX-512 → "AVX-512": the vectors the block's numbers come from (src/tensor/vector_unit.h)."""
    return next((w[6:] for w in words if w.startswith("width=")), None)


def vectors_of(attnlab):
    """The vectors of the attnlab under test, as `attnlab --version` says them: "AVX-512, 16 floats a vector"."""
    try:
        version = subprocess.run([attnlab, "--version"], stdout=subprocess.PIPE, timeout=30).stdout.decode()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    found = re.search(r"vectors: ([^)]*)", version)
    return found.group(1) if found else "unknown"


def tolerance_of(words):
    """tol=X → (X, False), tol=X% → (X/100, True), none → None."""
    for w in words:
        if w.startswith("tol="):
            text = w[4:]
            return (float(text[:-1]) / 100, True) if text.endswith("%") else (float(text), False)
    return None


def line_matcher(shown, tolerance):
    """A function output_line → bool for one line of an output block."""
    pieces = []                                          # (regex, is_number)
    for part in re.split(r"(…)", shown.rstrip()):
        if part == "…":
            pieces.append((".*?", False))
        elif tolerance is None:
            pieces.append((re.escape(part), False))
        else:
            last = 0
            for m in re.finditer(r"(?<![\w.])" + NUMBER + r"(?![\w.])", part):
                pieces.append((re.escape(part[last:m.start()]), False))
                pieces.append(("(" + NUMBER + ")", True))
                last = m.end()
            pieces.append((re.escape(part[last:]), False))
    regex = re.compile("".join(p for p, _ in pieces))
    wanted = [float(m.group(0)) for part in re.split(r"…", shown) if tolerance is not None
              for m in re.finditer(r"(?<![\w.])" + NUMBER + r"(?![\w.])", part)]

    def matches(line):
        m = regex.fullmatch(line.rstrip())
        if not m:
            return False
        if tolerance is None:
            return True
        limit, relative = tolerance
        for want, got in zip(wanted, (float(g) for g in m.groups())):
            if abs(want - got) > (limit * abs(want) if relative else limit):
                return False
        return True
    return matches


def compare_output(shown, output, tolerance):
    """None when the output block `shown` (lines) matches `output` (lines); else (index of the first page line that
    no match could get past, index of the output line it was compared with)."""
    matchers = [None if l.strip() in ELLIPSIS_LINES else line_matcher(l, tolerance) for l in shown]
    memo = {}
    furthest = [(-1, 0)]

    def match(i, j):                                     # shown[i:] against output[j:]
        if (i, j) in memo:
            return memo[i, j]
        if i == len(shown):
            result = j == len(output)
        elif matchers[i] is None:
            result = any(match(i + 1, k) for k in range(j, len(output) + 1))
        else:
            result = j < len(output) and matchers[i](output[j]) and match(i + 1, j + 1)
        if not result and i > furthest[0][0]:
            furthest[0] = (i, j)
        memo[i, j] = result
        return result

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * (len(shown) + len(output)) + 1000))
    return None if match(0, 0) else furthest[0]


def updated_block(shown, output, tolerance):
    """The output block rewritten for today's output. The page's lines that still match some output line, in order,
    are kept as the page wrote them (the most of them: a longest common subsequence), and so are its `…` lines;
    between two kept lines, a stale line is replaced by the output line in its place — counted from the gap's start
    before a `…` line, from its end after it — and where the page has no `…` the gap becomes today's lines."""
    matchers = [None if l.strip() in ELLIPSIS_LINES else line_matcher(l, tolerance) for l in shown]
    n, m = len(shown), len(output)
    best = [[0] * (m + 1) for _ in range(n + 1)]          # best[i][j]: the most matches of shown[i:] in output[j:]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            here = best[i + 1][j + 1] + 1 if matchers[i] is not None and matchers[i](output[j]) else 0
            best[i][j] = max(here, best[i + 1][j], best[i][j + 1])
    anchors, i, j = [], 0, 0                              # (page line, output line) pairs kept
    while i < n and j < m:
        if matchers[i] is not None and matchers[i](output[j]) and best[i][j] == best[i + 1][j + 1] + 1:
            anchors.append((i, j))
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    new, last_i, last_j = [], 0, 0
    for i, j in anchors + [(n, m)]:
        gap, today = shown[last_i:i], [l.rstrip() for l in output[last_j:j]]
        dots = [k for k, l in enumerate(gap) if l.strip() in ELLIPSIS_LINES]
        if not dots:
            new.extend(today)
        else:
            before, after = gap[:dots[0]], gap[dots[-1] + 1:]
            new.extend(today[:len(before)] + gap[dots[0]:dots[-1] + 1] + today[len(today) - len(after):][:len(after)]
                       if len(today) >= len(before) + len(after) else today)
        if i < n:
            new.append(shown[i])
        last_i, last_j = i + 1, j + 1
    return new


def run_blocks(root, attnlab, report, keep=False, update=False, work=None):
    blocks = runnable_blocks(root)
    rewrites = {}                                        # page_rel → [(first line, old lines, new lines)]
    if not blocks:
        return
    if work is None:
        work = tempfile.mkdtemp(prefix="attnlab-docs-")
    else:                                                # --work DIR: a new folder that is kept
        os.makedirs(work)
        keep = True
    try:
        for name in ("configs", "data"):
            if os.path.isdir(os.path.join(root, name)):
                shutil.copytree(os.path.join(root, name), os.path.join(work, name), symlinks=True)
        if os.path.isdir(os.path.join(root, "tools")):
            os.symlink(os.path.join(root, "tools"), os.path.join(work, "tools"))
        bin_dir = os.path.join(work, ".bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(attnlab), os.path.join(bin_dir, "attnlab"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        # build/release/ of the pages (engine_tour, attnlab) is the folder of the attnlab under test
        os.makedirs(os.path.join(work, "build"))
        os.symlink(os.path.dirname(os.path.abspath(attnlab)), os.path.join(work, "build", "release"))
        vectors = vectors_of(attnlab)
        for page_rel, line, words, body, shown in blocks:
            where = f"{page_rel}:{line}"
            options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            expected_exit = int(options.get("exit", "0"))
            timeout = float(options.get("timeout", "120"))
            script = "\n".join(body) + "\n"
            started = time.monotonic()
            try:
                done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
                output, code = done.stdout.decode("utf-8", "replace"), done.returncode
            except subprocess.TimeoutExpired as e:
                output, code = (e.stdout or b"").decode("utf-8", "replace"), None
            seconds = time.monotonic() - started
            first = next((l for l in body if l.strip() and not l.lstrip().startswith("#")), "").strip()
            if code is None:
                report.fail(where, f"runnable block `{first}` did not finish in {timeout:.0f} s")
                continue
            tail = "\n    ".join(output.rstrip().split("\n")[-12:])
            if code != expected_exit:
                report.fail(where, f"runnable block `{first}` exited {code}, expected {expected_exit}; its output "
                                   f"ends:\n    {tail}")
                continue
            missing = [l.split("# expect:", 1)[1].strip() for l in body if l.strip().startswith("# expect:")]
            missing = [text for text in missing if text not in output]
            if missing:
                report.fail(where, f"runnable block `{first}`: its output lacks {missing}; it ends:\n    {tail}")
                continue
            width = width_of(shown[1]) if shown is not None else None
            if width is not None and not vectors.startswith(width + ","):
                shown = None                             # numbers of a model trained on other vectors: not compared
                if not report.quiet:
                    print(f"     {where}: its output block shows {width} numbers, this build's vectors are "
                          f"{vectors}: not compared", flush=True)
            if shown is not None:
                shown_line, shown_words, shown_lines = shown
                today = output.rstrip("\n").split("\n")
                tolerance = tolerance_of(shown_words)
                differs = compare_output(shown_lines, today, tolerance)
                if differs is not None and update:
                    rewrites.setdefault(page_rel, []).append(
                        (shown_line, shown_lines, updated_block(shown_lines, today, tolerance)))
                elif differs is not None:
                    i, j = differs
                    page_text = shown_lines[i] if i < len(shown_lines) else "(the block's end)"
                    today_text = today[j] if j < len(today) else "(the output's end)"
                    report.fail(f"{page_rel}:{shown_line + 1 + i}",
                                f"the output block of runnable block `{first}` (line {line}) no longer matches "
                                f"what it prints: the page has\n    {page_text}\n  where the output has\n    "
                                f"{today_text}\n  (tools/course.sh --update rewrites it; its output ends:\n    {tail})")
                    continue
            report.ok()
            if not report.quiet:
                print(f"ok   {where}: `{first}` ({seconds:.1f} s)", flush=True)
        for page_rel, changes in rewrites.items():
            rewrite_blocks(os.path.join(root, page_rel), changes)
            if not report.quiet:
                print(f"docs: rewrote {len(changes)} output block(s) of {page_rel}", flush=True)
    finally:
        if keep:
            print(f"docs: the runnable blocks' folder is kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def rewrite_blocks(path, changes):
    lines = read_lines(path)
    for first, old, new in sorted(changes, reverse=True):        # bottom up, so that earlier line numbers hold
        assert lines[first:first + len(old)] == old, f"{path}:{first + 1}: the block changed while it ran"
        lines[first:first + len(old)] = new
    write(path, "\n".join(lines))


# ---- the self-test -----------------------------------------------------------------------------------------------
def first_line_reference(root):
    """(page_rel, line, file_rel, number) of the first line reference in the real pages (not one shown in code)."""
    checker = Checker(root, Report(quiet=True))
    for page in checker.pages():
        for part in split_page(read_lines(page)):
            if part[0] != "prose":
                continue
            number, text = part[1], part[2]
            code = [(m.start(), m.end()) for m in CODE_SPAN.finditer(text)]
            for m in LINK.finditer(text):
                if any(a < m.start() < b for a, b in code):
                    continue
                path, _, anchor = m.group(3).partition("#")
                a = LINE_ANCHOR.match(anchor) if anchor else None
                if a and path and not path.endswith(".md"):
                    full = os.path.normpath(os.path.join(os.path.dirname(page), path))
                    if os.path.isfile(full):
                        return (os.path.relpath(page, root), number + text.count("\n", 0, m.start()),
                                os.path.relpath(full, root), int(a.group(1)))
    return None


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test(root):
    problems = []
    cases = [0]

    def expect(name, checker_root, wanted, attnlab=None):
        cases[0] += 1
        report = Report(quiet=True)
        Checker(checker_root, report).check_all()
        if attnlab:
            run_blocks(checker_root, attnlab, report)
        hits = [f for f in report.failures if all(w in f for w in wanted)]
        if not wanted and report.failures:
            problems.append(f"{name}: expected no failure, got {report.failures}")
        elif wanted and not hits:
            problems.append(f"{name}: expected a failure naming {wanted}, got {report.failures or 'none'}")

    # 1. The real pages, on a copy of the tree in which the first referenced source line has moved down by one.
    found = first_line_reference(root)
    if found is None:
        problems.append("the pages hold no line reference to move")
    else:
        page_rel, page_line, file_rel, number = found
        work = tempfile.mkdtemp(prefix="attnlab-docs-self-")
        try:
            moved_top = file_rel.split(os.sep, 1)[0]
            for name in os.listdir(root):
                if name in (".git", "build", "runs"):
                    continue
                source, target = os.path.join(root, name), os.path.join(work, name)
                if name == moved_top:
                    shutil.copytree(source, target, symlinks=True)
                else:
                    os.symlink(source, target)
            before = Report(quiet=True)
            Checker(work, before).check_all()
            moved = os.path.join(work, file_rel)
            lines = read_lines(moved)
            lines.insert(number - 1, "")                     # a blank line above it: the line is now number + 1
            write(moved, "\n".join(lines))
            after = Report(quiet=True)
            Checker(work, after).check_all()
            new_failures = [f for f in after.failures if f not in before.failures]
            naming = [f for f in new_failures if f.startswith(f"{page_rel}:{page_line}:") and
                      f"{file_rel}#L{number}" in f and f"now on line {number + 1}" in f]
            cases[0] += 1
            if before.failures:
                problems.append(f"the unchanged copy of the tree already fails: {before.failures}")
            if not naming:
                problems.append(f"moving {file_rel}:{number} down one line was not reported as "
                                f"'{page_rel}:{page_line}: … {file_rel}#L{number} … now on line {number + 1}'; "
                                f"new failures: {new_failures or 'none'}")
            else:
                print(f"self-test: moved {file_rel} line {number} down by one; the check says:\n  {naming[0]}")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    # 2. Small made-up trees, one fault each.
    work = tempfile.mkdtemp(prefix="attnlab-docs-self-")
    try:
        src = "// a.cpp\nint add(int a, int b) {\n  return a + b;   // the sum\n}\n"
        def tree(name, page, extra=None):
            base = os.path.join(work, name)
            write(os.path.join(base, "src", "util", "a.cpp"), src)
            write(os.path.join(base, "docs", "guide", "other.md"), "# Other page\n\n## A section\n")
            write(os.path.join(base, "README.md"), "# Tree\n")
            write(os.path.join(base, "docs", "guide", "page.md"), page)
            for path, text in (extra or {}).items():
                write(os.path.join(base, path), text)
            return base
        good = ("# Page\n\n[other](other.md#a-section), `src/util/a.cpp` `add()`, "
                "[a.cpp:3](../../src/util/a.cpp#L3) `return a + b;`, [`add()`](../../src/util/a.cpp)\n")
        expect("a tree with every kind of reference right", tree("good", good), [])
        expect("a missing page", tree("link", "[x](missing.md)\n"), ["docs/guide/page.md:1", "link missing.md"])
        expect("a missing heading", tree("anchor", "[x](other.md#no-such)\n"), ["page.md:1", "no heading #no-such"])
        expect("a missing file", tree("file", "see `src/util/b.cpp`\n"), ["page.md:1", "src/util/b.cpp"])
        expect("a missing function", tree("function", "`src/util/a.cpp` `subtract()`\n"),
               ["page.md:1", "subtract()", "src/util/a.cpp"])
        expect("a line that changed", tree("line", "[a.cpp:3](../../src/util/a.cpp#L3) `return a - b;`\n"),
               ["page.md:1", "src/util/a.cpp#L3", "on no line"])
        expect("a line reference without its text", tree("quote", "[a.cpp:3](../../src/util/a.cpp#L3)\n"),
               ["page.md:1", "no `quoted text`"])
        write(os.path.join(work, "beside.yaml"), "a file beside the tree, which a clone would not have\n")
        expect("a path out of the tree to a file that exists here", tree("outside", "run it on configs/../../beside.yaml\n"),
               ["page.md:1", "configs/../../beside.yaml", "no such file"])
        expect("a bare file:line", tree("bare", "as `src/util/a.cpp:3` says\n"), ["page.md:1", "nobody checks"])
        expect("'line N' in prose", tree("words", "see line 3 of the file\n"), ["page.md:1", "line 3"])
        expect("a gdb line that moved", tree("gdb", "```gdb\n    at /x/src/util/a.cpp:2\n2\t  return a + b;   // the sum\n```\n"),
               ["page.md:3", "src/util/a.cpp#L2", "now on line 3"])
        adder = {"src/util/b.h": "struct Adder {\n  int sum(int a, int b) const;\n};\nenum class Kind { plain, fused };\n"}
        expect("names that their classes have", tree("members", "[`Adder::sum()`](../../src/util/b.h), `Kind::fused`, "
                                                                "`src/util/a.cpp` and `b.h`\n\n```gdb\n(gdb) break Adder::sum\n```\n",
                                                 adder), [])
        expect("a method its class does not have", tree("member", "[`Adder::add()`](../../src/util/b.h)\n", adder),
               ["page.md:1", "Adder has no add()"])
        expect("a function a gdb session names that is gone",
               tree("gdbname", "```gdb\n(gdb) break Adder::total\n```\n", adder), ["page.md:2", "Adder::total"])
        expect("a `Class::method` span that is gone", tree("span", "as `Adder::total` does\n", adder),
               ["page.md:1", "Adder::total"])
        expect("a file listed beside the wrong folder", tree("beside", "`src/util/a.cpp`, `c.cpp` and `b.h`\n", adder),
               ["page.md:1", "`c.cpp`", "src/util/"])
        expect("a course page out of the chapter order",
               tree("order", "# Page\n", {"CMakeLists.txt": "set(ATTNLAB_CHAPTERS util tensor)\n",
                                          "docs/course/00-util.md": "# util\n", "docs/course/02-tensor.md": "# t\n"}),
               ["docs/course/", "01-tensor.md"])
        expect("a chapter page too long to hold",
               tree("long", "# Page\n", {"CMakeLists.txt": "set(ATTNLAB_CHAPTERS util)\n",
                                         "docs/course/00-util.md": "# util\n" + "text\n" * 250}),
               ["docs/course/00-util.md", "251 lines"])
        fake = os.path.join(work, "fake-attnlab")
        write(fake, "#!/bin/sh\necho \"attnlab $*\"\n[ \"$1\" != fail ]\n")
        os.chmod(fake, 0o755)
        expect("a runnable block that fails", tree("run", "```sh runnable\nattnlab fail\n```\n"),
               ["page.md:1", "exited 1, expected 0"], attnlab=fake)
        expect("a runnable block whose output lacks its expectation",
               tree("expect", "```sh runnable\nattnlab gradcheck\n# expect: 3 passed\n```\n"),
               ["page.md:1", "lacks ['3 passed']"], attnlab=fake)
        expect("a runnable block that passes", tree("pass", "```sh runnable\nattnlab gradcheck\n# expect: attnlab gradcheck\n```\n"),
               [], attnlab=fake)

        # Output blocks: the command prints three lines; the page shows them, stale, elided or within a tolerance.
        prints = "```sh runnable\nprintf 'one 1.00\\ntwo 2\\nthree 3\\n'\n```\n\n"
        expect("an output block that went stale", tree("stale", prints + "```text\none 1.00\ntwo 5\nthree 3\n```\n"),
               ["page.md:7", "no longer matches", "two 5", "two 2"], attnlab=fake)
        expect("an output block missing a line", tree("short", prints + "```text\none 1.00\nthree 3\n```\n"),
               ["page.md:7", "three 3", "two 2"], attnlab=fake)
        expect("an output block with … lines and … in a line", tree("dots", prints + "```text\none …\n…\n```\n"),
               [], attnlab=fake)
        expect("numbers within the block's tolerance", tree("tol", prints + "```text tol=0.1\none 1.05\n…\n```\n"),
               [], attnlab=fake)
        expect("numbers beyond the block's tolerance", tree("tol2", prints + "```text tol=1%\none 1.05\n…\n```\n"),
               ["page.md:6", "one 1.05", "one 1.00"], attnlab=fake)
        avx2 = os.path.join(work, "avx2-attnlab")      # a build whose vectors are AVX2
        write(avx2, "#!/bin/sh\necho 'attnlab 0.1.0 (float32, and bfloat16 emulated only; vectors: AVX2, 8 floats a vector)'\n")
        os.chmod(avx2, 0o755)
        expect("a stale block of numbers trained on AVX-512, on an AVX2 build: not compared",
               tree("width", prints + "```text width=AVX-512\none 7\n…\n```\n"), [], attnlab=avx2)
        expect("a stale block of numbers trained on AVX2, on an AVX2 build",
               tree("width2", prints + "```text width=AVX2\none 7\n…\n```\n"), ["page.md:6", "one 7"], attnlab=avx2)
        cases[0] += 1                                   # --update rewrites the stale line and keeps the … line
        updated = tree("update", prints + "```text\none 7\n…\n```\n")
        run_blocks(updated, fake, Report(quiet=True), update=True)
        page = read_text(os.path.join(updated, "docs", "guide", "page.md"))
        if "```text\none 1.00\n…\n```" not in page:
            problems.append(f"--update: expected the block 'one 1.00', '…', got:\n{page}")
        expect("a block --update rewrote", updated, [], attnlab=fake)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for p in problems:
        print(f"self-test: {p}")
    failed = min(len(problems), cases[0])
    print(f"docs: {cases[0] - failed} passed, {failed} failed (self-test: each check against a planted fault)")
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--self-test":
        root = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        return self_test(os.path.abspath(root))
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.split("\n\n")[1])
        return 2
    root = os.path.abspath(argv[1])
    keep = "--keep" in argv
    update = "--update" in argv
    work = None
    if "--work" in argv:
        at = argv.index("--work")
        if at + 1 >= len(argv) or os.path.exists(argv[at + 1]):
            print("docs_test.py: --work needs a folder that does not exist yet")
            return 2
        work = os.path.abspath(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    args = [a for a in argv[2:] if a not in ("--keep", "--update")]
    report = Report()
    Checker(root, report).check_all()
    if args:
        run_blocks(root, args[0], report, keep=keep, update=update, work=work)
    print(f"docs: {report.passed} passed, {len(report.failures)} failed")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
