"""What players decide about their own play, kept as history that nobody edits."""
