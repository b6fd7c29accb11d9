"""How grading reads a bundle: which files and parts the agent obeys (``graph``), and what an
instruction means in the languages Skillgate reads (``lexicon``, ``language``, ``intents``).

Built once per bundle and asked by Tier 1's rules, the capability inventory and the judges.
"""
