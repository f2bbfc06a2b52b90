"""Keys hidden inside longer codes (a district inside a postcode): the files note gives the
cut that matches, and its code, run as written, joins every row."""

from __future__ import annotations

import io

import pandas as pd

from codeact.agents.code import describe_files

DISTRICTS = [f"KB{n}" for n in range(1, 13)]
AREAS = "District,Area,Flood Risk\n" + "".join(
    f"{d},{['Millbank', 'Riverside', 'Hollins'][i % 3]},{['Low', 'High'][i % 2]}\n"
    for i, d in enumerate(DISTRICTS)
)


def _postcode(i: int) -> str:
    """KB1 to KB12 with an inward code, written in any case, with or without the space."""
    code = f"{DISTRICTS[i % 12]} {i % 10}{'ABX'[i % 3]}{'QPZ'[i % 3]}"
    code = code.lower() if i % 4 == 1 else code
    return code.replace(" ", "") if i % 3 == 0 else code


LISTINGS = "Ref,Postcode,Price\n" + "".join(f"L{i},{_postcode(i)},{100 + i}\n" for i in range(60))


def _hint(note: str) -> str:
    (hint,) = [ln for ln in note.splitlines() if ln.startswith("- Keys inside codes")]
    return hint


def test_a_district_inside_postcodes_gets_the_cut_that_joins_every_row() -> None:
    """fresh12 (blind): Postcode ('kb108pn', 'KB12 4SP') holds areas.csv's District; the
    model's str[:3] made KB1 of KB12."""
    hint = _hint(describe_files({"listings.csv": LISTINGS.encode(), "areas.csv": AREAS.encode()}))
    assert "'District' of 'areas.csv' (e.g. 'KB1') is part of 'Postcode' of 'listings.csv'" in hint
    code = hint.split("Cut it out, then join: ", 1)[1]
    cut, merge = code.split("; then ")
    scope = {"df": pd.read_csv(io.StringIO(LISTINGS)), "pd": pd}
    exec(cut, scope)
    areas = pd.read_csv(io.StringIO(AREAS))
    joined = eval(merge.replace("pd.read_csv('areas.csv')", "areas"), {**scope, "areas": areas})
    assert len(joined) == 60 and joined["Area"].notna().all()
    expected = [DISTRICTS[i % 12] for i in range(60)]
    assert scope["df"]["District"].tolist() == expected
    # the first three characters would not do (KB1 for KB12): the cut is not str[:3]
    assert "str[:3]" not in cut


def test_codes_that_are_the_keys_or_hold_no_key_get_no_cut() -> None:
    plain = "Ref,District\n" + "".join(f"L{i},{DISTRICTS[i % 12]}\n" for i in range(60))
    assert "Keys inside codes" not in describe_files(
        {"l.csv": plain.encode(), "areas.csv": AREAS.encode()}
    )
    other = LISTINGS.replace("KB", "ZX").replace("kb", "zx")
    assert "Keys inside codes" not in describe_files(
        {"l.csv": other.encode(), "areas.csv": AREAS.encode()}
    )
    # a store code whose part before the dash is a region of the other file
    stores = "Store,Sales\n" + "".join(f"{'NSEW'[i % 4]}W-{i:04d},{i}\n" for i in range(40))
    regions = "Region,Manager\nNW,a\nSW,b\nEW,c\nWW,d\n"
    hint = _hint(describe_files({"s.csv": stores.encode(), "r.csv": regions.encode()}))
    assert "df['Region'] = df['Store'].str.strip().str.upper().str.split('-').str[0]" in hint


def test_the_best_cut_wins_and_odd_keys_get_no_hint() -> None:
    """Review: with 5% of postcodes written without the space, the first cut past 90% (the
    first word) was chosen though all but the last three characters matches every row;
    one-letter keys (grades A-D against product codes), a file that has the key's column
    itself, and 60 by 60 matching columns (3,600 hints) got hints."""
    codes = [f"{DISTRICTS[i % 12]} {i % 10}AB" for i in range(200)]
    codes = [c.replace(" ", "") if i % 20 == 0 else c for i, c in enumerate(codes)]
    listings = "Ref,Postcode\n" + "".join(f"L{i},{c}\n" for i, c in enumerate(codes))
    hint = _hint(describe_files({"l.csv": listings.encode(), "areas.csv": AREAS.encode()}))
    assert ".str.replace(' ', '').str[:-3]" in hint and "of the rows match" not in hint
    grades = "Grade,Note\nA,x\nB,y\nC,z\nD,w\n"
    products = "Code,Price\n" + "".join(f"{'ABCD'[i % 4]}{1000 + i},{i}\n" for i in range(40))
    note = describe_files({"p.csv": products.encode(), "g.csv": grades.encode()})
    assert "Keys inside codes" not in note
    own = LISTINGS.replace("Ref,Postcode,Price", "Ref,Postcode,District").replace(",1", ",KB1")
    note = describe_files({"l.csv": own.encode(), "areas.csv": AREAS.encode()})
    assert "Keys inside codes" not in note
    wide = "\n".join(
        [",".join(f"k{j}" for j in range(20))]
        + [",".join(f"KB{i}" for _ in range(20)) for i in range(1, 13)]
    )
    many = "\n".join(
        [",".join(f"p{j}" for j in range(20))]
        + [",".join(f"KB{1 + i % 12} {i}AB" for _ in range(20)) for i in range(60)]
    )
    note = describe_files({"m.csv": many.encode(), "w.csv": wide.encode()})
    assert 1 <= note.count("Keys inside codes") <= 3
