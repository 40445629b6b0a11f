"""The product speaks of itself only: no tracked text file (and no generated report, see
``tests/test_reports_report.py``) speaks of the people or the process that made it.

The patterns are precise so that code passes: pytest's ``scope="session"``, a
``session`` variable or an HTTP ``urllib.request`` are not prose. The samples in
``test_patterns_are_precise`` are bare fragments, one per pattern family, not sentences.
"""

import pathlib
import re
import string
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

PATTERNS = (
    # people who made it
    r"\bengineers?\b",
    r"\bdevelopers?\b",
    r"\breviewers?\b",
    r"\bcoordinators?\b",
    r"\bcolleagues?\b",
    r"\bby us\b",
    # how it was made
    r"\bworktrees?\b",
    r"\btickets?\b",
    r"\bissues?\s*#\d+",
    r"\bissue \d+",
    r"\bthe issue(?:'s)?\b",
    r"\bissues? (?:lists?|names?|asks?|asked|says?|suggest\w*)\b",
    r"\b(?:feature|pull) requests?\b",
    r"\brequests? (?:asked|suggested)\b",
    r"\b(?:earlier|previous|last|this|next) (?:sessions?|rounds?)\b",
    r"\brounds? of work\b",
    # "session" in prose: not a quoted string, an attribute, a path, a call or an argument
    r"(?<![\w\"'=./{(\[-])sessions?\b(?![\w\"'(/}\]]|\s*[=,)])",
    # who else used the machine
    r"\bwho else\b",
    r"\bother (?:engineers?|people|jobs?|users of the machine)\b",
    r"\bshared with (?:\w+ )?other (?:engineers?|people|jobs?|work|users)\b",
    r"\bbeside other work\b",
    r"\bthe machine shared\b",
)
PROCESS_WORDS = re.compile("|".join(f"(?:{p})" for p in PATTERNS), re.IGNORECASE)


def process_words(text):
    """Return ``(line number, match, line)`` for every process word in ``text``.

    Examples
    --------
    >>> [m for _, m, _ in process_words('x, other ' + 'engineers, y')]
    ['other engineers']
    >>> process_words('@pytest.fixture(scope="session")\\ndef f(session, config): ...')
    []
    """
    return [
        (n, m.group(0), line.strip())
        for n, line in enumerate(text.splitlines(), 1)
        for m in PROCESS_WORDS.finditer(line)
    ]


def _tracked_text_files():
    try:
        listed = (
            subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
            .stdout.decode()
            .split("\0")
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    for name in filter(None, listed):
        path = ROOT / name
        if path == pathlib.Path(__file__) or not path.is_file():
            continue
        try:
            yield name, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file (an image, a checkpoint)


# The positive samples are templates: the words the patterns look for are filled in when the
# test runs, so that no tracked line is itself a sentence about the making of the product.
_WORDS = {
    "who": "engineers",
    "run": "session",
    "task": "issue",
    "others": "others",
    "jobs": "jobs",
    "shared": "shared",
    "box": "machine",
    "with": "with",
}


@pytest.mark.parametrize(
    "template, expected",
    [
        ("x, other $who' y", 1),
        ("x (an earlier $run) y", 1),
        ("x ($task 16) y", 1),
        ("x the $task suggested y", 1),
        ("x once per $run y", 1),
        ('@pytest.fixture(scope="session")', 0),
        ("def pytest_collection_modifyitems(session, config, items):", 0),
        ('session = _webdriver(port, "POST", "/session", {})', 0),
        ("import urllib.request; request = urllib.request.Request(url)", 0),
        ("Machine: 2-core x86-64, 24 GB. Date: 2026-11-30. Command: puf report.", 0),
        ("x, the $box $shared $with other $jobs, y", 2),
        ("a road that needs no pass $shared $with $others", 0),
    ],
)
def test_patterns_are_precise(template, expected):
    text = string.Template(template).substitute(_WORDS)
    assert len(process_words(text)) == expected


def test_tracked_files_speak_of_the_product():
    found = [
        f"{name}:{n}: {match!r} in {line[:120]}"
        for name, text in _tracked_text_files()
        for n, match, line in process_words(text)
    ]
    assert not found, "process words in tracked files:\n" + "\n".join(found)
