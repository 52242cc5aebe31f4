# SPDX-License-Identifier: Apache-2.0
"""The course's Sphinx extension.

- {bench}`4,476 GB/s <sum/float/raw/268435456>`: a figure from the committed benchmark rows
  (benchdata.py says the forms). The text shown must be the row's value, rounded as shown: if not,
  the build warns (and -W fails it). The row's name shows on hover.
- {api}`prism/reduce.hpp`: a link to that header's page of the API reference (Doxygen, built by
  scripts/docs.sh and copied beside the two languages as api/).
- The pictures (figures.py) are drawn from the same rows into <srcdir>/_figures before reading.
- Every page gets a link to the same page in the other language and to the API reference.
- The Chinese search works: Sphinx's Chinese search language names a stemmer (ChineseStemmer) that
  the JavaScript it ships does not define, which breaks search.html with a console error; the
  Latin words of Chinese pages are stemmed in English, so the class below names that stemmer.
  Chinese words are split by jieba (docs/course/requirements.txt).
"""
import logging as python_logging
import os
import re

from docutils import nodes
from sphinx.util import logging

import sphinx.search
from sphinx.search.zh import SearchChinese

import benchdata
import figures

logger = logging.getLogger(__name__)

LANGUAGES = {"en": ("zh", "中文", "API reference"), "zh": ("en", "English", "API 参考")}


def course_language(app):
    return "zh" if os.path.basename(os.path.normpath(app.srcdir)) == "zh" else "en"


def on_config_inited(app, config):
    # The Chinese tree gets Sphinx's Chinese labels (搜索, 下一页, ...) without a -D on the command line.
    if course_language(app) == "zh":
        config.language = "zh_CN"


# A line break inside a paragraph is a space to HTML, and browsers show it between two Chinese
# characters too; the Chinese sources are wrapped like the English ones, so the breaks between two
# CJK characters (or CJK punctuation) are taken out before parsing.
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
CJK_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")


def on_source_read(app, docname, source):
    if course_language(app) == "zh":
        source[0] = CJK_BREAK.sub("", source[0])


def on_builder_inited(app):
    figures.draw(os.path.join(app.srcdir, "_figures"))


def bench_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    display, _, target = text.partition("<")
    display, target = display.strip(), target.rstrip(">").strip()
    problem = benchdata.check(display, target) if target else "no <row> given"
    if problem:
        message = inliner.reporter.warning(f"bench figure {text!r}: {problem}", line=lineno)
        return [nodes.problematic(rawtext, rawtext), message], [message]
    return [nodes.abbreviation(display, display, explanation=target, classes=["bench"])], []


def api_page(header):
    """The Doxygen page of a header: scripts/docs.sh names it by its path, / and . made _."""
    return header.replace("/", "_").replace(".", "_") + ".html"


def api_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    header = text.strip()
    if not os.path.exists(os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", header)):
        message = inliner.reporter.warning(f"api: no header include/{header}", line=lineno)
        return [nodes.problematic(rawtext, rawtext), message], [message]
    env = inliner.document.settings.env
    depth = env.docname.count("/") + 1
    uri = "../" * depth + "api/" + api_page(header)
    node = nodes.reference(rawtext, "", internal=False, refuri=uri, classes=["api"])
    node += nodes.literal(header, header)
    return [node], []


def on_html_page_context(app, pagename, templatename, context, doctree):
    language = course_language(app)
    other, other_name, api_label = LANGUAGES[language]
    up = "../" * (pagename.count("/") + 1)
    context["course_language"] = language
    context["course_other_url"] = f"{up}{other}/{pagename}.html"
    context["course_other_name"] = other_name
    context["course_other_code"] = "zh-CN" if other == "zh" else "en"
    context["course_api_url"] = f"{up}api/index.html"
    context["course_api_label"] = api_label
    context["course_home_url"] = f"{up}index.html"


try:  # jieba announces its dictionary on stderr at every build
    import jieba

    jieba.setLogLevel(python_logging.WARNING)
except ImportError:
    pass


class ChineseSearch(SearchChinese):
    language_name = "English"  # the stemmer Sphinx's Chinese search ships: english-stemmer.js


def setup(app):
    sphinx.search.languages["zh"] = ChineseSearch
    app.connect("config-inited", on_config_inited)
    app.connect("builder-inited", on_builder_inited)
    app.connect("html-page-context", on_html_page_context)
    app.connect("source-read", on_source_read)
    app.add_role("bench", bench_role)
    app.add_role("api", api_role)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
