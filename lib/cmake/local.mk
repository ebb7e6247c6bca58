# lib/cmake/local.mk: the CMake package files (find_package(mixsolve)) installed in
# $(libdir)/cmake/mixsolve.  Made by `make', not configure: the paths are written relative to
# the file's own folder when libdir and includedir lie under the prefix (relocatable, DESTDIR).
cmakeconfigdir = $(libdir)/cmake/mixsolve
cmakeconfig_DATA = lib/cmake/mixsolveConfig.cmake lib/cmake/mixsolveConfigVersion.cmake
EXTRA_DIST += lib/cmake/mixsolveConfig.cmake.in lib/cmake/mixsolveConfigVersion.cmake.in
CLEANFILES += $(cmakeconfig_DATA)
if HAVE_FORTRAN
mix_cmake_fortran = TRUE
else
mix_cmake_fortran = FALSE
endif
# rel DIR: DIR as seen from the prefix (`${_mix_prefix}/...'), or DIR itself outside it.
mix_cmake_rel = case "$$d" in "$(prefix)"|"$(prefix)"/*) d=`echo "$$d" | sed 's|^$(prefix)|$${_mix_prefix}|'` ;; esac
lib/cmake/mixsolveConfig.cmake: $(srcdir)/lib/cmake/mixsolveConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) lib/cmake && \
	up=`echo "$(cmakeconfigdir)" | sed -e 's|^$(prefix)/||' -e 's|[^/][^/]*|..|g'` && \
	case "$(cmakeconfigdir)" in "$(prefix)"/*) ;; *) up="$(prefix)" ;; esac && \
	d="$(libdir)" && $(mix_cmake_rel) && libdir_c=$$d && \
	d="$(includedir)" && $(mix_cmake_rel) && includedir_c=$$d && \
	sed -e "s|[@]MIX_UP[@]|$$up|" -e "s|[@]MIX_LIBDIR[@]|$$libdir_c|" -e "s|[@]MIX_INCLUDEDIR[@]|$$includedir_c|" \
	    -e 's|[@]MIX_HAVE_FORTRAN[@]|$(mix_cmake_fortran)|' -e 's|[@]MIX_FC[@]|$(FC)|' \
	    -e 's|[@]PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|' $(srcdir)/lib/cmake/mixsolveConfig.cmake.in >$@.tmp && \
	mv $@.tmp $@
lib/cmake/mixsolveConfigVersion.cmake: $(srcdir)/lib/cmake/mixsolveConfigVersion.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) lib/cmake && \
	ptr=`echo __SIZEOF_POINTER__ | $(CC) -E - 2>/dev/null | sed -n '$$p'` && \
	sed -e 's|[@]PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|' -e "s|[@]MIX_SIZEOF_VOID_P[@]|$$ptr|g" \
	    $(srcdir)/lib/cmake/mixsolveConfigVersion.cmake.in >$@.tmp && mv $@.tmp $@
