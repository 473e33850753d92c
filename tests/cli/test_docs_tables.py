"""``python -m hot_envs.cli.docs`` writes the layout tables into the source checkout's
docs/environments.md, or into the document it is given; never beside an installed package."""

from __future__ import annotations

import pytest

import hot_envs.cli.docs
from hot_envs.cli.docs import BEGIN, END, STATE_BEGIN, STATE_END, main, observation_tables


def test_it_writes_the_checkout_document_by_default() -> None:
    assert hot_envs.cli.docs.checkout_doc() == hot_envs.cli.docs.DOC  # this test runs in a checkout


def test_it_writes_a_given_document(tmp_path, capsys) -> None:
    doc = tmp_path / "environments.md"
    doc.write_text(f"# Layouts\n\n{BEGIN}\n\ntext between\n\n{STATE_BEGIN}\n", encoding="utf-8")
    assert main([str(doc)]) == 0
    text = doc.read_text(encoding="utf-8")
    assert observation_tables() in text and END in text and STATE_END in text
    assert "text between" in text and str(doc) in capsys.readouterr().out


def test_an_installed_package_is_refused_without_a_path(tmp_path, monkeypatch, capsys) -> None:
    """As from a wheel: hot_envs in site-packages, beside another project's docs/ folder."""
    site = tmp_path / "site-packages"
    (site / "docs").mkdir(parents=True)
    (site / "docs" / "environments.md").write_text(f"{BEGIN}\n{STATE_BEGIN}\n", encoding="utf-8")
    monkeypatch.setattr(hot_envs.cli.docs, "CHECKOUT", site)
    assert hot_envs.cli.docs.checkout_doc() is None
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert "not in a source checkout" in capsys.readouterr().err
    assert (site / "docs" / "environments.md").read_text() == f"{BEGIN}\n{STATE_BEGIN}\n"


def test_a_document_without_the_markers_is_refused(tmp_path, capsys) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main([str(doc)])
    assert "has no place for the tables" in capsys.readouterr().err
    assert doc.read_text() == "# Notes\n"
