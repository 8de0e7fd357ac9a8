from microyears import days_in_year, is_leap_year


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_is_leap_year_matches_reference():
    check(is_leap_year, [
        ((1800,), False),
        ((1900,), False),
        ((1996,), True),
        ((1999,), False),
        ((2000,), True),
        ((2001,), False),
        ((2004,), True),
        ((2019,), False),
        ((2020,), True),
        ((2023,), False),
        ((2024,), True),
        ((2100,), False),
        ((2400,), True),
    ])


def test_days_in_year_matches_reference():
    check(days_in_year, [
        ((1800,), 365),
        ((1900,), 365),
        ((1996,), 366),
        ((1999,), 365),
        ((2000,), 366),
        ((2001,), 365),
        ((2004,), 366),
        ((2019,), 365),
        ((2020,), 366),
        ((2023,), 365),
        ((2024,), 366),
        ((2100,), 365),
        ((2400,), 366),
    ])
