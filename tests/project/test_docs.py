"""The README stays a page a newcomer finishes, and every doc it links exists."""
import re

from conftest import ROOT


def test_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\((docs/[^)#]+)\)", text)
    assert len(links) >= 10 and all((ROOT / link).is_file() for link in links)


def test_every_doc_links_back_and_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{doc.name})" in readme, doc.name
        assert "(../README.md)" in doc.read_text(encoding="utf-8"), doc.name


def test_the_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "tests/run.sh" in readme and "tests/run.sh\n" in (ROOT / ".ci" / "run").read_text() + "\n"
