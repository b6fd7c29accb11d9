"""``skillgate``: submit agent skills to a Skillgate registry, install verified ones and check
them later.

The standard library and ``cryptography`` (ed25519, to check the registry's signatures) only,
so it runs anywhere Python 3.11 does, without Django.
"""

VERSION = "0.1.0"
