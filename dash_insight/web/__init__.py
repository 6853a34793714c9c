"""The web side shared by the plugins (HTTP plumbing, the page shell, URL state, components,
the plugin contract) and :mod:`.application`, the one place where every plugin meets."""
