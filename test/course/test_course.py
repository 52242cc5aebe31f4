# SPDX-License-Identifier: Apache-2.0
"""The course's pages, checked without building them (pytest test/course; scripts/course.sh --check).

- both languages have the same chapters, and each pair shows the same code, outputs and pictures,
  in the same order;
- every program in docs/course/code is shown with its output (blocks.py runs them);
- no code is written into a page except shell commands, each of which README.md or
  docs/benchmarks/README.md gives as it stands;
- every figure quoted ({bench}`...`) is the committed rows' value, and no measured figure is
  quoted without the role;
- every chapter ends in exercises whose answers are a program that runs.
"""
import os
import re
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COURSE = os.path.join(ROOT, "docs", "course")
sys.path.insert(0, os.path.join(COURSE, "_ext"))

import benchdata  # noqa: E402
import figures  # noqa: E402

LANGUAGES = ("en", "zh")
CHAPTERS = ["01-why-a-gpu", "02-first-kernel", "03-measuring", "04-reduction", "05-scan", "06-sorting",
            "07-histograms", "08-your-own-operations", "09-real-programs", "10-several-gpus", "11-choosing"]
EXERCISES = {"en": "## Exercises", "zh": "## 练习"}
FENCE = re.compile(r"^(```+)(\S*)([^\n]*)\n(.*?)^\1\s*$", re.S | re.M)


def page(language, name):
    with open(os.path.join(COURSE, language, name + ".md"), encoding="utf-8") as f:
        return f.read()


def fences(text):
    """(info, argument, body) of every fenced block."""
    return [(m.group(2), m.group(3).strip(), m.group(4)) for m in FENCE.finditer(text)]


def shown(text):
    """What a page shows from files: [(directive, argument, options)] of literalinclude and figure."""
    out = []
    for info, argument, body in fences(text):
        if info in ("{literalinclude}", "{figure}"):
            options = tuple(line for line in body.splitlines() if line.startswith(":") and not line.startswith(":alt:"))
            out.append((info.strip("{}"), argument, options))
    return out


def prose(text):
    """The page without its fenced blocks, HTML comments and inline code."""
    text = FENCE.sub("", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return text


def test_every_chapter_in_both_languages():
    for language in LANGUAGES:
        names = sorted(f[:-3] for f in os.listdir(os.path.join(COURSE, language)) if f.endswith(".md"))
        assert names == sorted(CHAPTERS + ["index"]), language
        index = page(language, "index")
        for chapter in CHAPTERS:
            assert re.search(rf"^{re.escape(chapter)}$", index, re.M), f"{language}/index.md lists no {chapter}"


@pytest.mark.parametrize("chapter", CHAPTERS + ["index"])
def test_same_code_figures_and_outputs_in_both(chapter):
    en, zh = shown(page("en", chapter)), shown(page("zh", chapter))
    assert en == zh, f"{chapter}: the two languages show different code, outputs or pictures"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_program_shown_with_its_output(language):
    included = []
    for chapter in CHAPTERS:
        included += [argument for kind, argument, _ in shown(page(language, chapter)) if kind == "literalinclude"]
    programs = sorted(f for f in os.listdir(os.path.join(COURSE, "code")) if re.search(r"\.(py|cpp|cu)$", f))
    for program in programs:
        assert f"../code/{program}" in included, f"{language}: no page shows {program}"
        at = included.index(f"../code/{program}")
        assert included[at + 1] == f"../code/{program}.out", f"{language}: {program} is not followed by its output"
        assert os.path.exists(os.path.join(COURSE, "code", program + ".out")), f"{program}: no .out"
    for argument in included:
        path = os.path.normpath(os.path.join(COURSE, language, argument))
        assert os.path.exists(path), f"{language}: {argument} does not exist"


def readme_commands():
    commands = set()
    for readme in ("README.md", os.path.join("docs", "benchmarks", "README.md")):
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            for info, _, body in fences(f.read()):
                if info == "sh":
                    commands |= {line.split("  #")[0].strip() for line in body.splitlines() if line.strip()}
    return commands


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_code_but_readme_commands(language):
    commands = readme_commands()
    for chapter in CHAPTERS + ["index"]:
        for info, _, body in fences(page(language, chapter)):
            if info.startswith("{"):
                assert info in ("{literalinclude}", "{figure}", "{toctree}"), f"{chapter}: a {info} block"
                continue
            assert info == "sh", f"{language}/{chapter}: a ```{info} block: programs live in docs/course/code"
            for line in body.splitlines():
                command = line.split("  #")[0].strip()
                if command:
                    assert command in commands, f"{language}/{chapter}: `{command}` is not a command README gives"


@pytest.mark.parametrize("language", LANGUAGES)
def test_figures_are_the_data(language):
    uses = 0
    for chapter in CHAPTERS + ["index"]:
        text = page(language, chapter)
        for display, target, line in benchdata.roles(text):
            uses += 1
            problem = benchdata.check(display, target)
            assert problem is None, f"{language}/{chapter}.md:{line}: {problem}"
    assert uses > 50


# A measured figure: a number with a unit of rate or time, a share of a ceiling, or a ratio.
MEASURED = re.compile(r"(?<![\w^.])[0-9][0-9,]*(?:\.[0-9]+)?\s?(?:GB/s|TB/s|Gkeys/s|µs|us\b|ms\b|%|x\b|×)")


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_figure_without_its_row(language):
    bare = []
    for chapter in CHAPTERS + ["index"]:
        text = prose(page(language, chapter))
        text = benchdata.ROLE.sub("", text)
        text = re.sub(r"`[^`]*`", "", text)
        bare += [f"{language}/{chapter}.md: '{m.group(0)}'" for m in MEASURED.finditer(text)]
    assert not bare, "figures without their row ({bench}`... <row>`): " + "; ".join(bare)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_chapter_ends_in_exercises_with_answers(language):
    for number, chapter in enumerate(CHAPTERS, 1):
        text = page(language, chapter)
        assert EXERCISES[language] in text, f"{language}/{chapter}: no exercises"
        after = text[text.index(EXERCISES[language]):]
        assert "## " not in after.replace(EXERCISES[language], "", 1).replace("### ", ""), \
            f"{language}/{chapter}: the exercises are not the chapter's end"
        answers = [a for k, a, _ in shown(after) if k == "literalinclude"]
        assert any(a.startswith(f"../code/{number:02d}-answers.") for a in answers), \
            f"{language}/{chapter}: the answers are not a program of this chapter"


def test_pictures_are_drawn():
    referenced = set()
    for language in LANGUAGES:
        for chapter in CHAPTERS:
            referenced |= {a for k, a, _ in shown(page(language, chapter)) if k == "figure"}
    assert referenced, "no pictures"
    for argument in referenced:
        assert argument.startswith("_figures/") and argument[len("_figures/"):-len(".png")] in figures.FIGURES, argument
