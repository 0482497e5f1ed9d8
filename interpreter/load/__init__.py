"""Loading rulesets: from a file's bytes to a checked document that remembers where every value was written.

- ``yaml``: reading a file or text into a Document (ruamel.yaml is the only YAML parser);
- ``events``: ruamel.yaml's parser as simple events, with tags, old YAML versions and deep flow refused;
- ``build``: events into a Document, enforcing the structural rules (keys, duplicates, aliases, depth);
- ``document``: the Document, its position tree and JSON paths;
- ``find``: a ruleset by id (bundled or in the user's ruleset folders) or by a path, confined when a file names it;
- ``overlay``: ``extends:`` files merged onto their base as a JSON Merge Patch, positions kept per file;
- ``patches``: one overlay applied: RFC 7386, steps patched by name, lists added to, each moved item's origin;
- ``checked``: a ruleset loaded and checked against the schema, through the parse cache;
- ``cache``: the parse cache, JSON records keyed by the SHA-256 of the bytes parsed, in a folder marked as its own;
- ``shipped``: the parsed documents shipped beside the bundled rulesets, read for the exact bytes they were made from;
- ``shape``: the schema compiled into a fast yes-or-no check, run on every document before use;
- ``schema``: the JSON Schema check, its errors placed and worded for a game master;
- ``keywords``: the two schema keywords jsonschema checks our way (oneOf by a branch's key, whole-string patterns);
- ``bundled``: where the bundled rulesets and schemas are;
- ``layout``: plain words for the YAML layout mistakes people make by hand;
- ``modeline``: the first line of a file written for editors, naming its schema.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""
