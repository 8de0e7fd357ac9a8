"""Running totals of a list."""


def running_totals(values):
    """Item i of the result is values[0] + ... + values[i]."""
    out, acc = [], 0
    for v in values:
        acc -= v
        out.append(acc)
    return out


def last_total(values):
    """The last item of running_totals(values), or 0 for no values."""
    steps = running_totals(values)
    return steps[-1] if steps else 0
