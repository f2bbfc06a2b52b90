"""Values a question quotes only to show how the data is written are not filters the code
must use, and a cell that filters by one is sent back; "one" as a pronoun is not the number
1; a column of amounts as text tested as text is not an unconverted number."""

from __future__ import annotations

import pytest

from codeact.agents._datarules import text_number_problem
from codeact.agents._extrafilters import extra_filter_problem
from codeact.agents._filters import filter_problem
from codeact.agents.code import describe_files

SALES = (
    "Ref,Amount,Region,Score\n"
    + "".join(
        f"{i},{a},{r},{s}\n"
        for i, (a, r, s) in enumerate(
            [("$12.50", "North", 5), ("-$3.00", "South", ""), ("7.25 USD", "North", 1)] * 4
        )
    )
).encode()
NOTE = describe_files({"sales.csv": SALES})
READ = "import pandas as pd\ndf = pd.read_csv('sales.csv')\n"


def ask(question: str, constraints: str) -> str:
    return f"Question: {question}\nConstraints: {constraints}\nFormat: @x[x_value]\n\n{NOTE}"


RETURNS = ask(
    "How many returns are there?",
    "A return is a row with a negative Amount ('-$3.00' or '-3.00 USD'), not a sale. Amounts "
    "are written with a sign or a code, either way ('$12.50' and '12.50 USD' are both 12.50). "
    "Ref is written another way in refs.csv ('7' in sales.csv is 'RF-07' in refs.csv). Notes "
    "are separated by '; '.",
)


def test_values_quoted_in_parentheses_to_show_the_writing_are_not_filters() -> None:
    code = f"{READ}print(df['Amount'].str.startswith('-').sum())"
    assert filter_problem(RETURNS, code) is None
    parsed = f"{READ}x = df['Amount'].str.replace(r'[$,\\s]|USD', '', regex=True).astype(float)\n"
    assert filter_problem(RETURNS, parsed + "print((x < 0).sum())") is None
    same = ask("What is the total?", "Note that '$12.50' and '12.50 USD' are both 12.50.")
    assert filter_problem(same, parsed + "print(x.sum())") is None
    named = ask("What is the total?", "Note that '$12.50' and '12.50 USD' are sales.")
    assert filter_problem(named, parsed + "print(x.sum())") is not None


def test_examples_listed_in_parentheses_after_an_explained_one_are_not_filters() -> None:
    """fresh17 (blind): "('2,5 h' is two and a half hours, '1 h' one hour)": '1 h' was taken
    for a filter, as the words explaining the first example came before it."""
    said = "Labour is in hours ('2,5 h' is two and a half hours, '1 h' one hour)."
    question = ask("How many jobs took more than 3 hours?", said)
    assert filter_problem(question, f"{READ}print((df['Score'] > 3).sum())") is None
    # a column named before the value in its own part of the parenthesis: still a filter
    named = ask("What is the mean score?", "Use the top ones ('P0' is unused, Priority 'P1').")
    assert "'P1'" in (filter_problem(named, f"{READ}print(df['Score'].mean())") or "")


def test_a_value_named_with_its_column_in_parentheses_is_still_a_filter() -> None:
    question = ask("What is the mean score of the top tickets?", "Use the P1 ones (Priority 'P1').")
    problem = filter_problem(question, f"{READ}print(df['Score'].mean())")
    assert problem is not None and "The question names 'P1'" in problem
    assert filter_problem(question, f"{READ}print(df[df.Region == 'P1'].Score.mean())") is None


def test_selecting_rows_by_a_quoted_example_is_sent_back() -> None:
    code = f"{READ}print(len(df[df['Amount'] != '-$3.00']))"
    problem = filter_problem(RETURNS, code)
    assert problem is not None and "quotes '-$3.00' only as an example" in problem
    # the fix the agent runs if the model re-runs its cell: a sign test on the converted amounts
    import contextlib
    import io

    import pandas as pd

    both = SALES + b"12,-4.50 USD,North,2\n13,-1.00 USD,South,3\n"  # (returns written both ways)

    def printed(cell: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            read = cell.replace("pd.read_csv('sales.csv')", "pd.read_csv(DATA)")
            exec(read, {"DATA": io.BytesIO(both), "pd": pd})
        return out.getvalue().strip()

    assert printed(code) == "10"  # (the returns written '-4.50 USD' were kept)
    fix = getattr(problem, "code", None)
    assert fix is not None and "~(df['Amount'].str.replace(" in fix and ".astype(float) < 0)" in fix
    assert printed(fix) == "8"  # all six returns left out
    again = getattr(filter_problem(RETURNS, code.replace("!=", "==")), "code", None)
    assert again is not None and printed(again) == "6"
    # both comparisons in one cell are rewritten, each with its own sign
    two = f"{READ}sales = df[df['Amount'] != '-$3.00']\nprint(len(df[df['Amount'] == '-$3.00']), len(sales))"
    both_fixed = getattr(filter_problem(RETURNS, two), "code", None)
    assert both_fixed is not None and printed(both_fixed) == "6 8"
    unsigned = ask("How many sales?", "Amounts are written like '$12.50' or '12.50 USD'.")
    plain = filter_problem(unsigned, f"{READ}print(len(df[df['Amount'] != '$12.50']))")
    assert plain is not None and getattr(plain, "code", None) is None  # (no sign to test)
    north = ask("How many sales in the North?", "Only rows with Region 'North'.")
    assert filter_problem(north, f"{READ}print(len(df[df['Region'] == 'North']))") is None


def test_one_as_a_pronoun_is_not_the_number_one() -> None:
    columns = ["Ref", "Amount", "Region", "Score"]
    question = ask(
        "What is the mean score of the sales that have one?",
        "Score is from 1 to 5, empty when none was given.",
    )
    code = f"{READ}print(df[df['Score'].notna() & (df['Score'] == 1)]['Score'].mean())"
    problem = extra_filter_problem(question, code, columns)
    assert problem is not None and "'one' in 'have one'" in problem
    assert extra_filter_problem(question, f"{READ}print(df['Score'].mean())", columns) is None
    for other in (
        ask("What is the mean amount of the sales with a score of 1?", "Scores go 1 to 5."),
        ask("How many regions have one sale with one score?", "Count them."),
    ):
        assert extra_filter_problem(other, code, columns) is None, other


def test_amounts_as_text_tested_as_text_are_not_unconverted_numbers() -> None:
    assert (
        text_number_problem(RETURNS, f"{READ}print(df['Amount'].str.startswith('-').sum())") is None
    )
    problem = text_number_problem(RETURNS, f"{READ}print(df['Amount'].sort_values().iloc[0])")
    assert problem is not None and "holds numbers stored as text" in problem
    both = f"{READ}neg = df['Amount'].str.startswith('-')\nprint(df['Amount'].max())"
    assert text_number_problem(RETURNS, both) is not None


def test_a_columns_values_listed_together_are_what_it_holds_not_filters() -> None:
    from codeact.agents._rules import category_problem

    data = "id,Status\n" + "".join(
        f"{i},{['Completed', 'Cancelled', 'No-show'][i % 3]}\n" for i in range(12)
    )
    note = describe_files({"r.csv": data.encode()})
    said = (
        "Status is Completed, Cancelled or No-show; only the Completed rows took place: leave "
        "the Cancelled and No-show rows out."
    )
    q = f"Question: How many rentals took place?\nConstraints: {said}\nFormat: @n[v]\n\n{note}"
    read = "import pandas as pd\ndf = pd.read_csv('r.csv')\n"
    assert category_problem(q, read + "print(len(df[df['Status'] == 'Completed']))") is None
    unfiltered = category_problem(q, read + "print(len(df))")
    assert unfiltered is not None and "'Completed'" in unfiltered
    # a value named on its own is still a filter
    alone = q.replace("How many rentals took place?", "How many No-show bookings were there?")
    wrong = category_problem(alone, read + "print(len(df[df['Status'] == 'Completed']))")
    assert wrong is not None and "'No-show'" in wrong


@pytest.mark.parametrize(
    ("said", "code", "flagged"),
    [
        # fresh11 (blind): a value inside parentheses that explain a quoted example
        (
            "Member Card is the home club code and the number ('RIV-0042' is member 42 of RIV); "
            "Club is the club the visit was at. Count the different Member Cards.",
            "print(df['Member Card'].nunique())",
            None,
        ),
        # fresh11 (blind): a spelling quoted with a leading space
        (
            "Activity is in any case, with stray spaces ('yoga ', ' YOGA' and 'Yoga' are all "
            "Yoga); count the visits whose Activity is Swimming.",
            "print((df['Activity'].str.strip().str.lower() == 'swimming').sum())",
            None,
        ),
        # the same without parentheses: ' YOGA' starts at its quote
        (
            "Activity is in any case: 'yoga ', ' YOGA' and 'Yoga' are all Yoga. Count the "
            "visits whose Activity is Swimming.",
            "print((df['Activity'].str.strip().str.lower() == 'swimming').sum())",
            None,
        ),
        # parentheses without a quoted example still name filters
        (
            "Count the visits at the northern clubs (RIV and NOR).",
            "print(df['Member Card'].nunique())",
            "'RIV'",
        ),
    ],
)
def test_values_explaining_a_quoted_example_are_not_filters(
    said: str, code: str, flagged: str | None
) -> None:
    from codeact.agents._rules import category_problem

    acts = ["yoga", "Swimming", " YOGA", "Yoga", "swimming", "Boxing"]
    data = "Club,Member Card,Activity\n" + "".join(
        f"{['RIV', 'NOR', 'OLD'][i % 3]},{['RIV', 'NOR', 'OLD'][i % 3]}-00{i:02d},{acts[i % 6]}\n"
        for i in range(30)
    )
    note = describe_files({"v.csv": data.encode()})
    q = f"Question: How many?\nConstraints: {said}\nFormat: @n[v]\n\n{note}"
    problem = category_problem(q, "import pandas as pd\ndf = pd.read_csv('v.csv')\n" + code)
    assert (flagged in (problem or "")) if flagged else problem is None, problem


def test_values_listed_as_the_ways_a_column_is_written_after_a_longer_phrase_are_examples() -> None:
    """fresh12 (blind): "written with a £ sign in three ways: '£325,000', '£325k' (thousands)
    and '£1.25m' (millions) are 325000, 325000 and 1250000" sent a fee total back to filter on
    '£325,000'."""
    data = b"Ref,Sold Price,Fee\n" + b"".join(
        b'%d,"\xc2\xa3%d,500",1.5%%\n' % (i, 100 + i) for i in range(12)
    )
    said = (
        "Sold Price is in pounds, written with a \u00a3 sign in three ways: '\u00a3325,000', "
        "'\u00a3325k' (thousands) and '\u00a31.25m' (millions) are 325000, 325000 and 1250000. "
        "Add up the fees."
    )
    q = f"Question: Total fees?\nConstraints: {said}\n\n{describe_files({'l.csv': data})}"
    code = "print((df['Fee'].str.rstrip('%').astype(float) / 100).sum())"
    assert filter_problem(q, code) is None
    # the same values quoted without the phrase (nor the numbers they are) are filters
    asked = q.replace("written with a \u00a3 sign in three ways:", "count those priced")
    asked = asked.replace(" are 325000, 325000 and 1250000", "")
    assert "'\u00a3325,000'" in (filter_problem(asked, code) or "")


def test_a_value_inside_a_column_name_the_question_says_is_not_a_filter() -> None:
    from codeact.agents._rules import category_problem

    data = "Ref,Status,Asking Price,Sold Price\n" + "".join(
        f"{i},{['Sold', 'Withdrawn', 'For Sale'][i % 3]},{100 + i},{90 + i if i % 3 == 0 else ''}\n"
        for i in range(12)
    )
    note = describe_files({"l.csv": data.encode()})
    said = "Asking Price and Sold Price are in pounds. Take the mean over all the listings."
    q = f"Question: What is the mean asking price?\nConstraints: {said}\nFormat: @m[v]\n\n{note}"
    read = "import pandas as pd\ndf = pd.read_csv('l.csv')\n"
    assert category_problem(q, read + "print(df['Asking Price'].mean())") is None
    # the value on its own, beside the column name, is still a filter
    sold = q.replace("What is the mean asking price?", "What is the mean asking price when Sold?")
    problem = category_problem(sold, read + "print(df['Asking Price'].mean())")
    assert problem is not None and "'Sold'" in problem


def test_examples_of_text_read_as_numbers_and_item_barcodes_ask_for_nothing() -> None:
    """fresh14 (blind), right answers sent away: "returned more than 21 days after they were
    lent" was taken for the Loan Period value '21 days' (a number with a unit, 104 became
    19), and "how many days were returned items kept" for the Item column of barcodes
    (15.26 became the mean count of an Item)."""
    from codeact.agents._category import category_problem
    from codeact.agents._notecols import category_values
    from codeact.agents._rules import column_problem

    periods = ["7 days", "3 weeks", "21 days"]
    data = "Loan ID,Item,Loan Period,Format,Renewed\n" + "".join(
        f"LN{70000 + i},{39000000000 + i * 7919},{periods[i % 3]},{['Book', 'DVD'][i % 2]},"
        f"{['0', 'FALSE', 'Y'][i % 3]}\n"
        for i in range(30)
    )
    note = describe_files({"l.csv": data.encode()})
    values = category_values(f"Q\n\n{note}")
    assert "21 days" not in values and "Book" in values
    assert ", " not in values  # (quotes read in pairs: not the text between '0' and 'FALSE')
    text = (
        "Question: How many items were returned more than 21 days after they were lent?\n"
        f"Format: @n[v]\n\n{note}"
    )
    code = "print(((df['Back'] - df['Lent']).dt.days > 21).sum())"
    assert category_problem(text, code) is None
    kept = text.replace(
        "How many items were returned more than 21 days after they were lent?",
        "On average, how many days were returned items kept? Count the days each item was kept.",
    )
    assert column_problem(kept, "print((df['Back'] - df['Lent']).dt.days.mean())") is None
    # the column named as it is written is asked for; a category value still is
    named = text.replace("How many items", "How many distinct Item values")
    assert "'Item'" in (column_problem(named, code) or "")
    assert "'DVD'" in (category_problem(text.replace("items", "DVD items"), code) or "")


def test_a_quoted_part_of_how_values_are_written_is_no_filter() -> None:
    """fresh14 (blind): "Member is the borrower's member number, written 'M-' and four digits
    in any case" sent a join back to filter on 'M-'."""
    data = b"Loan,Member\n" + b"".join(b"L%d,M-%04d\n" % (i, i) for i in range(12))
    said = "Member is the member number, written 'M-' and four digits in any case."
    q = f"Question: How many loans?\nConstraints: {said}\n\n{describe_files({'l.csv': data})}"
    assert filter_problem(q, "print(len(df))") is None
    # a quoted value asked for as such still is a filter
    asked = q.replace("written 'M-' and four digits in any case", "count those written 'M-'")
    assert "'M-'" in (filter_problem(asked, "print(len(df))") or "")


def test_legends_other_spellings_lists_and_banded_values_are_no_filters() -> None:
    """fresh13 and fresh14 (blind), right answers sent away: "written 'TRUE', 'true', '1' or
    'Y' for yes and 'FALSE', ... for no" (a filter on 'FALSE'); "Non-Fiction is also written
    'Nonfiction'" (on 'Nonfiction', then on 'Non-Fiction'); "Genre is Fiction, Non-Fiction,
    Crime, Children or Biography" read with the note's values misread (on 'Children');
    "Age Band is Under 18, 18-34, 35-59 or 60+" (the threshold 18)."""
    from codeact.agents._category import category_problem

    data = "Loan,Renewed,Genre,Age Band\n" + "".join(
        f"L{i},{['TRUE', 'false', '1', 'N'][i % 4]},"
        f"{['Children', 'children', 'Non-Fiction', 'Nonfiction', 'Crime', 'Fiction', 'Biography'][i % 7]},"
        f"{['Under 18', '18-34', '35-59', '60+'][i % 4]}\n"
        for i in range(56)
    )
    note = describe_files({"l.csv": data.encode()})

    def ask(question: str, constraints: str) -> str:
        return f"Question: {question}\nConstraints: {constraints}\nFormat: @n[v]\n\n{note}"

    renewed = ask(
        "How many loans were renewed?",
        "Renewed is written 'TRUE', 'true', '1' or 'Y' for yes and 'FALSE', 'false', '0' or "
        "'N' for no. Count the renewed loans.",
    )
    yes = "print(df['Renewed'].astype(str).str.strip().str.upper().isin(['TRUE', '1', 'Y']).sum())"
    assert filter_problem(renewed, yes) is None
    fiction = ask(
        "How many loans were of Fiction?",
        "Genre is Fiction, Non-Fiction, Crime, Children or Biography, typed in any case; "
        "Non-Fiction is also written 'Nonfiction', and it is not Fiction. Count the Fiction loans.",
    )
    folded = "print((df['Genre'].str.strip().str.lower() == 'fiction').sum())"
    assert filter_problem(fiction, folded) is None
    assert category_problem(fiction, folded) is None
    band = ask(
        "How many members are in the 60+ age band?",
        "Age Band is Under 18, 18-34, 35-59 or 60+. Count the members whose Age Band is 60+.",
    )
    assert filter_problem(band, "print((df['Age Band'] == '60+').sum())") is None
    # a threshold that is no value of a column still counts
    older = band.replace("in the 60+ age band", "born more than 18 years ago")
    assert "threshold 18" in (filter_problem(older, "print((df['Age Band'] == '60+').sum())") or "")


def test_spellings_of_one_key_said_to_be_all_one_are_not_filters() -> None:
    """fresh16 (blind): "PLANT is the plant's catalogue number, written 'P-017', 'p017' or
    plain '17' (all plant 17)" sent a cell joining on the extracted number back to filter
    on 'P-017'."""
    said = "Ref is written 'P-017', 'p017' or plain '17' (all plant 17). Count the rows."
    code = READ + "df['n'] = df['Ref'].astype(str).str.extract(r'(\\d+)')[0]\nprint(len(df))"
    assert filter_problem(ask("How many rows?", said), code) is None
    # without "(all ...)", a quoted value the code never uses is still a filter
    asked = "Count the rows whose Ref is 'P-017' or 'p017'."
    assert "'P-017'" in (filter_problem(ask("How many rows?", asked), code) or "")
    # review: "(both ...)" after two different values is not spellings of one
    lost = "Count the rows whose Region value is 'North' or 'South' (both are lost sales)."
    assert "'North'" in (filter_problem(ask("How many rows?", lost), READ + "print(len(df))") or "")


def test_a_currency_code_the_note_converts_is_not_a_filter() -> None:
    """fresh16 (blind): "Total is written with a pound sign ('£1,234.50') or after 'GBP'
    ('GBP 1234.50')" made 'GBP' a filter the code never applied."""
    said = "Amount is written with a sign or after 'USD' ('USD 7.25'). Add up the Amounts."
    code = READ + "print(df['Amount'].str.replace(r'[$,\\s]|USD', '', regex=True).count())"
    assert "'USD' codes" in NOTE
    assert filter_problem(ask("What is the total?", said), code.replace("|USD", "")) is None
    # review: in a column of several currencies a quoted code is a filter, whichever it is
    mixed = b"id,Amount\n1,12.50 EUR\n2,3 USD\n3,GBP 4\n4,5 EUR\n"
    note = describe_files({"m.csv": mixed})
    summed = "print(df['Amount'].str.replace(r'[^0-9.]', '', regex=True).astype(float).sum())"
    for cur in ("EUR", "GBP", "USD"):
        q = f"Question: What is the total paid in '{cur}'?\nFormat: @x[v]\n\n{note}"
        assert f"'{cur}'" in (filter_problem(q, READ.replace("sales", "m") + summed) or ""), cur
