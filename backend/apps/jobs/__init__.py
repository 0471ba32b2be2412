"""Jobs: one asked question run in the background, its pipeline events persisted and streamed live."""
