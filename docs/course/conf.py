# SPDX-License-Identifier: Apache-2.0
# The course's Sphinx configuration, shared by both languages: scripts/course.sh builds
#   sphinx-build -W -c docs/course docs/course/en docs/site/en     (English)
#   sphinx-build -W -c docs/course docs/course/zh docs/site/zh     (Chinese: the extension sets zh_CN)
# and puts the API reference (scripts/docs.sh) beside them as docs/site/api.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

project = "prism"
author = "the prism authors"
copyright = "the prism authors, Apache-2.0"
extensions = ["myst_parser", "prism_course"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_figures/README*"]
templates_path = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "_templates")]
html_static_path = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "_static")]
html_css_files = ["course.css"]
html_theme = "alabaster"
html_theme_options = {"description": "GPU primitives, every implementation side by side", "fixed_sidebar": False,
                      "page_width": "1180px", "sidebar_width": "230px",
                      "show_powered_by": False}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
myst_heading_anchors = 3
highlight_language = "none"
# No page loads anything from outside the site (the browser test runs without a network).
html_use_opensearch = ""
