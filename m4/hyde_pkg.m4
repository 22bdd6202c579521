# HYDE_PKG(VARIABLE-PREFIX, MODULE, DEBIAN-PACKAGE)
# ------------------------------------------------
# PKG_CHECK_MODULES, but a missing module stops configure with one line that
# names the Debian package to install, instead of pkg-config's generic text.
AC_DEFUN([HYDE_PKG],
[PKG_CHECK_MODULES([$1], [$2], [],
  [AC_MSG_ERROR([$2 not found: install the Debian package '$3' (apt-get install $3)])])])
