"""Programs analysed as programs: shipped scripts and instruction code blocks as syntax trees.

``python`` reads Python with ``ast``; ``shell``, ``javascript`` and ``powershell`` read their
languages with tree-sitter. Each yields *facts* (``facts.Fact``): a secret source reaching a sink,
fetched or decoded text executed, a string produced by a decoder, a network send to a host.
Values are followed through variables, function calls and returns, loops and string building;
constant strings are folded, so ``"~/" + ".s" + "sh"`` and a XOR-decoded path are the path.
"""
