"""Loading rulesets: from a file's bytes to a checked document that remembers where every value was written.

- ``yaml``: reading a file or text into a Document (ruamel.yaml is the only YAML parser);
- ``events``: ruamel.yaml's parser as simple events, with tags, old YAML versions and deep flow refused;
- ``build``: events into a Document, enforcing the structural rules (keys, duplicates, aliases, depth);
- ``document``: the Document, its position tree and JSON paths;
- ``find``: a ruleset by id (bundled or in the user's ruleset folders) or by path;
- ``overlay``: ``extends:`` files merged onto their base as a JSON Merge Patch, positions kept per file;
- ``checked``: a ruleset loaded and checked against the schema, through the parse cache;
- ``cache``: the parse cache, JSON records keyed by the SHA-256 of the bytes parsed;
- ``schema``: the JSON Schema check, its errors placed and worded for a game master;
- ``bundled``: where the bundled rulesets and schemas are.
"""
