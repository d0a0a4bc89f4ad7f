"""`[team]` in spanlab.toml and the one rule for who may do what (§15): every bad value is
refused naming the key and its line; `--annotator` names only the login (or `project`, for
a lead); each role's refusal names the role and the line that grants the act."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.errors import ConfigError
from labeler.core.project import config
from labeler.core.team.roles import (
    PROJECT,
    Act,
    Member,
    Team,
    TeamRefusal,
    member,
    refuse_outsiders,
)

TOML = """corpus = "corpus"
db = ".spanlab/labels.db"

[team]
# who leads and who labels
leads = ["tl-lead"]
annotators = [
  "tl-alice",
  "tl-bob",
]
"""


def load(tmp_path: Path, text: str) -> config.Project:
    (tmp_path / "spanlab.toml").write_text(text, encoding="utf-8")
    return config.load(tmp_path)


def refused(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    return caught.value


def test_team_is_read_with_the_lines_of_its_keys(tmp_path: Path) -> None:
    team = load(tmp_path, TOML).team
    assert team is not None
    assert (team.leads, team.annotators, team.lines) == (
        ("tl-lead",),
        ("tl-alice", "tl-bob"),
        (6, 7),
    )
    assert team.setting("leads") == 'spanlab.toml line 6: leads = ["tl-lead"]'
    assert [team.role(n) for n in ("tl-lead", "tl-bob", "carol")] == ["lead", "annotator", None]


def test_no_team_means_no_roles(tmp_path: Path) -> None:
    assert load(tmp_path, 'corpus = "corpus"\n').team is None
    assert config.load(tmp_path / "nowhere").team is None


def test_dotted_keys_are_found_too(tmp_path: Path) -> None:
    team = load(tmp_path, 'team.leads = ["a"]\nteam.annotators = ["b"]\n').team
    assert team is not None and team.lines == (1, 2)


@pytest.mark.parametrize(
    ("text", "key", "line", "message"),
    [
        ('[team]\nleads = ["a"]\nreviewers = ["b"]\n', "team.reviewers", 3,
         "unknown key 'reviewers' in [team] (known: leads, annotators)"),
        ('[team]\nleads = "a"\n', "team.leads", 2,
         "'team.leads' must be a list of login names, got str"),
        ('[team]\nleads = ["a"]\nannotators = [1]\n', "team.annotators", 3,
         "'team.annotators' holds int, not a login name (letters, digits, '.', '_', '-'; "
         "at most 64)"),
        ('[team]\nleads = ["a"]\nannotators = ["b c"]\n', "team.annotators", 3,
         "'team.annotators' holds \"b c\", not a login name (letters, digits, '.', '_', '-'; "
         "at most 64)"),
        ('[team]\nleads = ["../x"]\n', "team.leads", 2,
         "'team.leads' holds \"../x\", not a login name (letters, digits, '.', '_', '-'; "
         "at most 64)"),
        ('[team]\nleads = ["a"]\nannotators = ["b", "a"]\n', "team.annotators", 3,
         "'a' is in both leads and annotators; one role each"),
        ('[team]\nleads = ["a", "a"]\n', "team.leads", 2, "'team.leads' names 'a' twice"),
        ('[team]\nleads = ["project"]\n', "team.leads", 2,
         "'project' is reserved: a lead acts for the project by that name"),
        ('[team]\nannotators = ["b"]\n', "team.leads", None,
         "[team] names no lead: nobody could import, assign or adjudicate"),
    ],
)  # fmt: skip
def test_a_bad_team_is_refused_naming_key_and_line(
    tmp_path: Path, text: str, key: str, line: int | None, message: str
) -> None:
    error = refused(tmp_path, 'corpus = "c"\n' + text)
    assert (error.key, error.message) == (key, message)
    assert error.line == (None if line is None else line + 1)  # the corpus line comes first
    assert error.file == str(tmp_path / "spanlab.toml")


def test_a_top_level_key_written_under_team_is_refused_with_where_it_belongs(
    tmp_path: Path,
) -> None:
    error = refused(tmp_path, '[team]\nleads = ["a"]\nblind = true\n')
    assert (error.key, error.line) == ("team.blind", 3)
    assert error.hint == "move blind above [team]: a key after a table's header is the table's"


def test_team_must_be_a_table_and_is_bounded(tmp_path: Path) -> None:
    assert refused(tmp_path, 'team = "everyone"\n').message == "'team' must be a table: [team]"
    many = ", ".join(f'"u{i}"' for i in range(1001))
    error = refused(tmp_path, f'[team]\nleads = ["a"]\nannotators = [{many}]\n')
    assert error.message == "'team.annotators' holds 1001 names; at most 1000"


def test_init_writing_the_file_again_keeps_the_team(tmp_path: Path) -> None:
    proj = load(tmp_path, TOML)
    config.write(proj)
    again = config.load(tmp_path)
    assert again.team is not None
    assert (again.team.leads, again.team.annotators) == (("tl-lead",), ("tl-alice", "tl-bob"))


TEAM = Team(("lead",), ("alice", "bob"), "/p/spanlab.toml", (7, 8))


def test_the_login_is_the_name_on_edits() -> None:
    assert member(TEAM, None, login="bob") == Member("bob", "bob", TEAM)
    assert member(TEAM, "bob", login="bob").name == "bob"
    assert member(None, None, login="bob").name == "bob"
    assert member(None, "carol", login="bob").name == "carol"  # no [team]: as before


def test_annotator_may_name_only_the_login() -> None:
    with pytest.raises(TeamRefusal) as caught:
        member(TEAM, "carol", login="bob")
    assert caught.value.message == (
        "--annotator 'carol': with a [team] in spanlab.toml, edits carry your login (bob)"
    )
    assert caught.value.key == "--annotator"
    assert caught.value.hint == "leave --annotator out (a lead may pass --annotator project)"


def test_only_a_lead_acts_for_the_project() -> None:
    assert member(TEAM, PROJECT, login="lead") == Member("lead", "project", TEAM)
    with pytest.raises(TeamRefusal) as caught:
        member(TEAM, PROJECT, login="bob")
    assert caught.value.message == (
        "bob is not a lead; acting as the project is for leads (spanlab.toml line 7: "
        'leads = ["lead"])'
    )


@pytest.mark.parametrize("act", [a for a in Act if a is not Act.LABEL])
def test_annotators_label_and_leads_do_the_rest(act: Act) -> None:
    bob, lead = Member("bob", "bob", TEAM), Member("lead", "lead", TEAM)
    assert bob.refusal(act) == (
        f'bob is an annotator; {act.value} is for leads (spanlab.toml line 7: leads = ["lead"])'
    )
    with pytest.raises(TeamRefusal, match="bob is an annotator"):
        bob.require(act)
    assert lead.refusal(act) is None and bob.refusal(Act.LABEL) is None
    assert Member("lead", PROJECT, TEAM).refusal(act) is None  # the project's lead


def test_someone_not_on_the_team_does_nothing() -> None:
    carol = Member("carol", "carol", TEAM)
    assert carol.refusal(Act.LABEL) == (
        "carol is not on the team; labelling is for annotators and leads "
        '(spanlab.toml line 8: annotators = ["alice", "bob"])'
    )
    assert carol.refusal(Act.IMPORT) == (
        "carol is not on the team; importing labels is for leads (spanlab.toml line 7: "
        'leads = ["lead"])'
    )
    assert all(Member("carol", "carol", None).refusal(a) is None for a in Act)


def test_queues_go_only_to_members() -> None:
    refuse_outsiders(TEAM, ["alice", "bob", "lead"])
    refuse_outsiders(None, ["anyone"])
    with pytest.raises(TeamRefusal, match="'alcie' is not on the team; queues are for"):
        refuse_outsiders(TEAM, ["alice", "alcie"])
