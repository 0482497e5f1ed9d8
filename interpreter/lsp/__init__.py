"""The language server (`rules lsp`): the real checks of rulesets, overlays and sheets as they are typed.

- ``pieces``: a text being edited, loaded in pieces so that an edit parses only the piece it changed;
"""
