"""Account balance arithmetic."""


def balance_delta(deposits, withdrawals):
    """Total deposits minus total withdrawals."""
    return sum(deposits) + sum(withdrawals)


def not_losing(deposits, withdrawals):
    """True if the balance does not go down."""
    return balance_delta(deposits, withdrawals) >= 0
