# doc/local.mk: man pages and the guide.
