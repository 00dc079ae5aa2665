"""Layer 2, data: hub datasets and mirrors (hub), images, downloaded archives, GitHub files (remote), mirror
writers. Imports statistics and below."""
