#!/usr/bin/env python3
"""The feed corpus's expectations, from feedparser (the outside oracle).

Reads every file in Tests/FeedCorpus with feedparser, from PyPI, in a
virtual environment this script makes (.build/feed-oracle-venv), and
writes what it finds to Tests/FeedCorpus/expectations.json: the feed's
title, and per entry the title, the enclosure's URL, the guid, the date
(UTC, ISO 8601) and the duration in seconds. FeedCorpusTests (Swift, no
Python) reads the corpus with mediaplay's readers and compares.

Where feedparser is wrong, the file's "exceptions" (kept as written when
this script runs again) give the right value and say why, per file, per
entry, per field.

    scripts/feed-oracle.py            # write the expectations
    scripts/feed-oracle.py --check    # exit 1 if they are not what feedparser says
"""

import html
import json
import os
import re
import subprocess
import sys
import time

FEEDPARSER = "feedparser==6.0.14"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "FeedCorpus")
EXPECTATIONS = os.path.join(CORPUS, "expectations.json")
VENV = os.path.join(ROOT, ".build", "feed-oracle-venv")


def in_venv():
    """Runs this script again inside a virtual environment with feedparser."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", FEEDPARSER], check=True)
    os.execv(python, [python] + sys.argv)


def text(value, detail):
    """A title as text: feedparser's HTML (when it says the type is HTML) without markup."""
    if value is None:
        return None
    if detail is not None and detail.get("type") in ("text/html", "application/xhtml+xml"):
        value = re.sub(r"<[^>]*>", "", value)
        value = html.unescape(value)
        value = re.sub(r"\s+", " ", value)
    value = value.strip()
    return value or None


def seconds(duration):
    """itunes:duration as seconds: H:M:S, M:S or seconds."""
    if not duration:
        return None
    parts = duration.strip().split(":")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        return None
    total = 0.0
    for number in numbers:
        total = total * 60 + number
    return total


def iso(parsed):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", parsed) if parsed else None


def entry(item):
    enclosure = None
    for link in item.get("enclosures", []):
        if link.get("href"):
            enclosure = link["href"]
            break
    if enclosure is None:
        for media in item.get("media_content", []):
            if media.get("url"):
                enclosure = media["url"]
                break
    date = item.get("published_parsed") or item.get("updated_parsed") or item.get("created_parsed")
    return {
        "title": text(item.get("title"), item.get("title_detail")),
        "enclosure": enclosure,
        "guid": item.get("id") or None,
        "date": iso(date),
        "duration": seconds(item.get("itunes_duration")),
    }


def main():
    in_venv()
    import feedparser

    previous = {}
    if os.path.exists(EXPECTATIONS):
        with open(EXPECTATIONS, encoding="utf-8") as existing:
            previous = json.load(existing)
    files = {}
    for name in sorted(os.listdir(CORPUS)):
        if name == os.path.basename(EXPECTATIONS) or name.startswith("."):
            continue
        with open(os.path.join(CORPUS, name), "rb") as source:
            data = source.read()
        # No base address: an id is compared as written (feedparser would
        # resolve a guid like "walk-1" against it). JSON Feed is told by its type.
        headers = {"content-type": "application/feed+json"} if name.endswith(".json") else {}
        parsed = feedparser.parse(data, response_headers=headers)
        files[name] = {
            "title": text(parsed.feed.get("title"), parsed.feed.get("title_detail")),
            "entries": [entry(item) for item in parsed.entries],
        }
    document = {
        "oracle": FEEDPARSER,
        "files": files,
        "exceptions": previous.get("exceptions", {}),
    }
    written = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if "--check" in sys.argv:
        with open(EXPECTATIONS, encoding="utf-8") as existing:
            if existing.read() != written:
                print("expectations.json is not what feedparser says; run scripts/feed-oracle.py", file=sys.stderr)
                sys.exit(1)
        return
    with open(EXPECTATIONS, "w", encoding="utf-8") as out:
        out.write(written)
    print(f"{EXPECTATIONS}: {len(files)} files")


if __name__ == "__main__":
    main()
