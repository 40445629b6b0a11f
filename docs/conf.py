"""Sphinx configuration of the puf-harness site (``sphinx-build -W docs docs/_build/html``)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import puf  # noqa: E402
import puf.properties  # noqa: E402

project = "puf-harness"
author = "the puf-harness authors"
copyright = "the puf-harness authors, BSD-3-Clause"
version = release = puf.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: maths renders offline
    "numpydoc",
    "myst_parser",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    "registry_tables",
    "api_pages",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "examples/README.rst",
    "**/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]
templates_path = ["_templates"]

# MyST: Markdown pages with directives in fences, heading anchors for links, $...$ maths, and
# {{ name }} substitutions for the counts a guide quotes, read from the registry when the site builds.
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist", "substitution"]
myst_substitutions = {"n_properties": str(len(puf.properties.CATALOG))}
myst_heading_anchors = 3

# API reference: one page per public name, from the numpydoc docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Worked examples with their figures: small and fast (each runs in seconds on 2 cores).
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "show_signature": False,
}

html_theme = "pydata_sphinx_theme"
html_title = "puf-harness"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "secondary_sidebar_items": ["page-toc"],
}
# No primary sidebar on the changelog, the design page and the API reference's name pages. A name
# page's sidebar would list every public name (over 800 links, written into each of the 800
# pages: two fifths of the build); such a page is reached from its package's page, which lists
# its names, and leads back to it by the breadcrumbs, the previous/next links and the top bar.
html_sidebars = {"changelog": [], "design": [], "api/generated/*": []}
html_show_sourcelink = False

# Sphinx's own doctests run on the guide's ``{doctest}`` blocks (``sphinx-build -b doctest``).
doctest_global_setup = "import numpy as np\nimport puf"
