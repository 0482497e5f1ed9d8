"""A rules-as-data interpreter for tabletop role-playing games."""
