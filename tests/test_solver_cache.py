"""The MonUnrail solver's persistent cache file (termgames/solver_cache.py)."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from termgames import solver_cache
from termgames.rules.monunrail.solver import Solver


def block(rows: int, cols: int) -> list[tuple[int, int]]:
    return [(c, r) for r in range(rows) for c in range(cols)]


# the second: a 2x9 strip less a corner domino, 16 tiles (a 2x8 block is 0 by symmetry: never searched, never kept)
SHAPES = [block(3, 5), block(2, 9)[2:], [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2), (3, 2)]]


def solved() -> tuple[Solver, list[int]]:
    solver = Solver()
    return solver, [solver.nimber(s) for s in SHAPES]


def test_round_trip_needs_no_solving(tmp_path):
    path = tmp_path / "cache.json.gz"
    solver, values = solved()
    written = solver_cache.save(solver, path)
    assert written == len(solver.export_cache()["shapes"]) > 0
    fresh = Solver()
    assert solver_cache.load(fresh, path) == written
    size = fresh.cache_size
    assert [fresh.nimber(s) for s in SHAPES] == values
    assert fresh.cache_size == size
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert data["format"] == "monunrail-nimbers" and data["version"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["cache.json.gz"]  # no temporary file left


def test_the_file_is_bounded_and_keeps_the_largest_shapes(tmp_path):
    path = tmp_path / "cache.json.gz"
    solver, _ = solved()
    assert solver_cache.save(solver, path, limit=10) == 10
    shapes = json.loads(gzip.decompress(path.read_bytes()))["shapes"]
    sizes = [bits.bit_count() for _h, _w, bits, _v in shapes]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] == 16  # the 16-tile strip itself


def test_save_merges_with_the_file(tmp_path):
    path = tmp_path / "cache.json.gz"
    one = Solver()
    one.nimber(block(3, 4))
    solver_cache.save(one, path)
    two = Solver()
    two.nimber(block(2, 7))
    solver_cache.save(two, path)
    fresh = Solver()
    solver_cache.load(fresh, path)
    size = fresh.cache_size
    fresh.nimber(block(3, 4))
    fresh.nimber(block(2, 7))
    assert fresh.cache_size == size


@pytest.mark.parametrize(
    "blob",
    [
        b"",
        b"garbage",
        gzip.compress(b"{not json"),
        gzip.compress(b"[1, 2, 3]"),
        gzip.compress(json.dumps({"format": "monunrail-nimbers", "version": 99, "shapes": []}).encode()),
        gzip.compress(json.dumps({"format": "monunrail-nimbers", "version": 1, "shapes": [[2, 2, 9, 0]]}).encode()),
        gzip.compress(json.dumps({"format": "monunrail-nimbers", "version": 1, "shapes": "x"}).encode()),
        gzip.compress(b"\xff\xfe"),
        gzip.compress(b"[" * 100_000 + b"]" * 100_000),
    ],
    ids=["empty", "not-gzip", "not-json", "not-an-object", "version", "bad-entry", "bad-list", "not-utf8", "nested"],
)
def test_a_corrupt_file_is_ignored_and_replaced(tmp_path, blob):
    path = tmp_path / "cache.json.gz"
    path.write_bytes(blob)
    solver = Solver()
    assert solver_cache.load(solver, path) == 0
    assert solver.nimber(block(2, 3)) == 2
    assert solver_cache.save(solver, path) > 0
    assert solver_cache.load(Solver(), path) > 0


def test_a_truncated_file_is_ignored(tmp_path):
    path = tmp_path / "cache.json.gz"
    solver, values = solved()
    solver_cache.save(solver, path)
    path.write_bytes(path.read_bytes()[:-20])
    fresh = Solver()
    assert solver_cache.load(fresh, path) == 0
    assert [fresh.nimber(s) for s in SHAPES] == values


def test_missing_file_and_unwritable_folder(tmp_path):
    solver, _ = solved()
    assert solver_cache.load(solver, tmp_path / "nothing-here.json.gz") == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert solver_cache.save(solver, blocker / "cache.json.gz") == 0  # its folder is a file: no crash


def test_the_environment_chooses_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv(solver_cache.CACHE_ENV, "off")
    assert solver_cache.default_path() is None
    solver, _ = solved()
    assert solver_cache.save(solver) == 0 and solver_cache.load(solver) == 0
    monkeypatch.setenv(solver_cache.CACHE_ENV, str(tmp_path / "mine.json.gz"))
    assert solver_cache.save(solver) > 0
    assert (tmp_path / "mine.json.gz").exists()
    monkeypatch.delenv(solver_cache.CACHE_ENV)
    assert solver_cache.default_path().name == solver_cache.FILE_NAME


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_read_only_folder_keeps_the_old_file(tmp_path):
    path = tmp_path / "ro" / "cache.json.gz"
    solver, _ = solved()
    solver_cache.save(solver, path)
    before = path.read_bytes()
    os.chmod(path.parent, 0o500)
    try:
        more = Solver()
        more.nimber(block(4, 4))
        if os.access(path.parent, os.W_OK):  # root ignores permissions
            pytest.skip("permissions are not enforced for this user")
        assert solver_cache.save(more, path) == 0
        assert path.read_bytes() == before
    finally:
        os.chmod(path.parent, 0o700)


# --------------------------------------------------------------------------
# The resume file of a solve stopped by a budget
# --------------------------------------------------------------------------


def test_position_tags_ignore_where_the_position_is():
    shape = [(0, 0), (1, 0), (1, 1)]
    assert solver_cache.position_tag(shape) == solver_cache.position_tag([(c + 3, r + 5) for c, r in shape])
    assert solver_cache.position_tag(shape) != solver_cache.position_tag([(0, 0), (1, 0)])
    assert solver_cache.position_tag([]) == "empty"


def test_a_resume_file_hands_everything_on_to_the_same_position(tmp_path):
    path = tmp_path / "resume.bin"
    solver = Solver()
    solver.nimber(block(4, 5))
    solver.nimber(block(3, 6))
    assert solver_cache.save_resume(solver, "mine", path) == path.stat().st_size > 0
    assert [p.name for p in tmp_path.iterdir()] == ["resume.bin"]  # no temporary file left
    other = Solver()
    assert solver_cache.load_resume(other, "someone else's", path) == 0 and other.cache_size == 0
    fresh = Solver()
    assert solver_cache.load_resume(fresh, "mine", path) > 0
    size = fresh.cache_size
    assert fresh.nimber(block(4, 5)) == 7 and fresh.nimber(block(3, 6)) == 6
    assert fresh.cache_size == size  # nothing solved again
    solver_cache.discard_resume("someone else's", path)
    assert path.exists()
    solver_cache.discard_resume("mine", path)
    assert not path.exists()
    solver_cache.discard_resume("mine", path)  # nothing there: no error


def test_a_damaged_resume_file_is_ignored(tmp_path):
    path = tmp_path / "resume.bin"
    solver = Solver()
    solver.nimber(block(3, 5))
    solver_cache.save_resume(solver, "mine", path)
    whole = path.read_bytes()
    for damaged in (whole[:-7], whole[:40], b"junk", whole.replace(b"mine", b"mind"), b""):
        path.write_bytes(damaged)
        fresh = Solver()
        assert solver_cache.load_resume(fresh, "mine", path) == 0
        assert fresh.nimber(block(3, 5)) == 3  # still right: only checked entries were taken in


def test_the_resume_file_lives_beside_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(solver_cache.CACHE_ENV, str(tmp_path / "cache.json.gz"))
    assert solver_cache.resume_path() == tmp_path / solver_cache.RESUME_NAME
    monkeypatch.setenv(solver_cache.CACHE_ENV, "off")
    assert solver_cache.resume_path() is None
    solver = Solver()
    assert solver_cache.save_resume(solver, "x") == 0 and solver_cache.load_resume(solver, "x") == 0


def test_save_picks_the_largest_shapes_and_survives_a_solver_at_its_memory_limit(tmp_path):
    path = tmp_path / "cache.json.gz"
    other = Solver()
    other.nimber(block(3, 6))
    solver_cache.save(other, path)  # a file with shapes this solver has not got
    solver, _ = solved()
    solver.memory_limit = solver.memory + 100  # its tables cannot take the file's shapes in
    assert solver_cache.save(solver, path, limit=50) == 50
    shapes = json.loads(gzip.decompress(path.read_bytes()))["shapes"]
    everything = solver.export_cache()["shapes"]  # what it holds: its own and what it could take in
    assert sorted(bits.bit_count() for _h, _w, bits, _v in shapes) == sorted(
        bits.bit_count() for _h, _w, bits, _v in everything
    )[-50:]


# --------------------------------------------------------------------------
# Hostile and oversized files (issue 32, item 6)
# --------------------------------------------------------------------------


def test_a_resume_header_that_claims_more_than_the_file_holds_reserves_nothing(tmp_path):
    from termgames.rules.monunrail.solver import DUMP_MAGIC

    path = tmp_path / "resume.bin"
    # 50 bytes whose section claims 10^8 entries of 18 bytes: room for them would be gigabytes
    path.write_bytes(DUMP_MAGIC + b" mine\n" + b"C" + (18 * 10**8).to_bytes(8, "little") + bytes(12))
    solver = Solver()
    solver.memory_limit = 1 << 60  # no budget: the header alone must be refused
    lines: list[str] = []
    assert solver_cache.load_resume(solver, "mine", path, warn=lines.append) == 0
    assert len(lines) == 1 and "damaged" in lines[0]
    assert solver.memory < 1 << 24


def test_a_planted_symlink_is_replaced_not_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"someone's file")
    os.chmod(victim, 0o644)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "monunrail-resume.bin").symlink_to(victim)
    (shared / "cache.json.gz").symlink_to(victim)
    solver = Solver()
    solver.nimber(block(3, 4))
    assert solver_cache.save_resume(solver, "mine", shared / "monunrail-resume.bin") > 0
    assert solver_cache.save(solver, shared / "cache.json.gz") > 0
    assert victim.read_bytes() == b"someone's file" and victim.stat().st_mode & 0o777 == 0o644
    assert not (shared / "monunrail-resume.bin").is_symlink() and not (shared / "cache.json.gz").is_symlink()


def test_a_symlink_is_not_read_and_says_so(tmp_path):
    solver = Solver()
    solver.nimber(block(3, 4))
    real = tmp_path / "real.bin"
    solver_cache.save_resume(solver, "mine", real)
    solver_cache.save(solver, tmp_path / "real.json.gz")
    (tmp_path / "link.bin").symlink_to(real)
    (tmp_path / "link.json.gz").symlink_to(tmp_path / "real.json.gz")
    lines: list[str] = []
    fresh = Solver()
    assert solver_cache.load_resume(fresh, "mine", tmp_path / "link.bin", warn=lines.append) == 0
    assert solver_cache.load(fresh, tmp_path / "link.json.gz", warn=lines.append) == 0
    assert len(lines) == 2 and all("symlink" in line for line in lines)
    assert solver_cache.load_resume(fresh, "mine", real) > 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root")
def test_a_folder_another_user_owns_is_not_written_to(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o1777)
    os.chmod(shared, 0o1777)
    os.chown(shared, 65534, 65534)
    solver = Solver()
    solver.nimber(block(3, 4))
    assert solver_cache.save_resume(solver, "mine", shared / "resume.bin") == 0
    assert solver_cache.save(solver, shared / "cache.json.gz") == 0
    assert list(shared.iterdir()) == []
    # a file another user left there, with values of its choosing, is not taken in
    mine = tmp_path / "resume.bin"
    solver_cache.save_resume(solver, "mine", mine)
    os.chown(mine, 65534, 65534)
    lines: list[str] = []
    assert solver_cache.load_resume(Solver(), "mine", mine, warn=lines.append) == 0
    assert len(lines) == 1 and "another user" in lines[0]


def test_a_cache_that_unpacks_past_its_bound_is_ignored_in_one_line(tmp_path, monkeypatch):
    path = tmp_path / "cache.json.gz"
    solver, _ = solved()
    solver_cache.save(solver, path)
    monkeypatch.setattr(solver_cache, "MAX_CACHE_TEXT", 1000)
    lines: list[str] = []
    assert solver_cache.load(Solver(), path, warn=lines.append) == 0
    assert len(lines) == 1 and "damaged" in lines[0]


def test_saving_stays_within_the_memory_budget(tmp_path):
    from termgames.rules.monunrail.solver import SolveStopped

    path = tmp_path / "cache.json.gz"
    solver, _ = solved()
    solver_cache.save(solver, path)
    before = path.read_bytes()
    asked: list[tuple[int, str]] = []

    def refuse(need: int, what: str) -> None:
        asked.append((need, what))
        raise SolveStopped("memory", f"{what} needs {need}")

    more = Solver()
    more.nimber(block(4, 5))
    assert solver_cache.save(more, path, afford=refuse) == 0
    assert path.read_bytes() == before and asked and asked[0][0] > 0
