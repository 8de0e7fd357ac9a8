"""The secret seed: every name, order and value a twin takes derives from it, so the agent cannot predict them."""

import hashlib
import hmac
import random


def token(seed, *parts):
    """HMAC of the parts under the secret seed: names and choices the agent cannot predict."""
    return hmac.new(seed.encode(), "\x1f".join(parts).encode(), hashlib.sha256).hexdigest()


def rng(seed, *parts):
    """A random generator seeded by the token of the parts."""
    return random.Random(token(seed, *parts))
