#!/bin/sh
# Publishes the hotfix index (docs/hotfix.md "The hotfix index"): a small signed repository holding only
# the aks-node-controller and aks-node-controller-delta packages, beside the repository that serves them,
# so a node fetches a few kilobytes of metadata instead of the whole index. Run it in the repository's
# publishing step, after the packages are in place, signing with the repository's own key (the key
# nodes already trust for it): gpg's default key, or GPG_SIGN_KEY.
#
#   publish-hotfix-index.sh apt <repository root> <suite> [<pool directory, default pool>]
#       -> dists/<suite>/aks-node-controller/{Packages,Packages.gz,Release,InRelease}
#          (a flat repository, suite ./: aks-node-controller/ in the root)
#   publish-hotfix-index.sh rpm <repository root>
#       -> aks-node-controller/repodata/{repomd.xml,repomd.xml.asc,...}
#
# Filenames/locations in the index stay relative to the repository root: the packages are not copied.
#
# The index is bound to its place (issue 34): ANC_REPOSITORY_PATH is the URL path of the repository root
# as nodes' sources name it (apt's URI, dnf's baseurl; e.g. /ubuntu/22.04/prod). It goes into the signed
# metadata (apt: an Aks-Node-Controller-Repository field beside Suite; rpm: a repomd.xml repo tag), and a
# node uses the index only when it names the node's own repository and suite. A path binds the place, not
# the host (one repository served by several hosts keeps one index); ANC_REPOSITORY_PATH may instead be the
# full https://host[:port]/path, which binds the origin too (issue 41 R4-20; docs/hotfix.md "The binding").
set -eu
usage() { echo "usage: ANC_REPOSITORY_PATH=<URL path of the repository> $0 apt <repository root> <suite> [<pool dir>] | rpm <repository root>" >&2; exit 2; }
[ $# -ge 2 ] || usage
binding=${ANC_REPOSITORY_PATH:-}
origin=
case $binding in
/*) ;;
http://?*/* | https://?*/*)
  rest=${binding#*://}
  origin=${binding%%://*}://${rest%%/*}
  binding=/${rest#*/}
  ;;
http://?* | https://?*) origin=$binding binding=/ ;;
*) echo "$0: set ANC_REPOSITORY_PATH to the repository's URL path as nodes see it (starting with /), or its https://host/path to bind the host too" >&2; exit 2 ;;
esac
case $binding in
*[[:space:]]* | *'<'* | *'>'* | *'&'*) echo "$0: ANC_REPOSITORY_PATH must not contain white space, <, > or &" >&2; exit 2 ;;
esac
# The node compares paths without a trailing slash ('/' for the root).
while [ "$binding" != / ] && [ "${binding%/}" != "$binding" ]; do binding=${binding%/}; done
[ -n "$binding" ] || binding=/
binding=$origin$binding
kind=$1
root=$2
sign() { gpg --batch --yes ${GPG_SIGN_KEY:+--local-user "$GPG_SIGN_KEY"} --digest-algo SHA256 "$@"; }
cd "$root"
case $kind in
apt)
  [ $# -ge 3 ] || usage
  suite=$3
  pool=${4:-pool}
  if [ "$suite" = ./ ]; then dir=aks-node-controller; pool=${4:-.}; else dir=dists/$suite/aks-node-controller; fi
  mkdir -p "$dir"
  apt-ftparchive packages "$pool" |
    awk 'BEGIN { RS = ""; ORS = "\n\n" } /^Package: aks-node-controller(-delta)?\n/' >"$dir/Packages"
  gzip -9nkf "$dir/Packages"
  release=$(mktemp)
  rm -f "$dir/Release" "$dir/InRelease"
  apt-ftparchive -o "APT::FTPArchive::Release::Suite=$suite" -o "APT::FTPArchive::Release::Label=aks-node-controller hotfix index" \
    release "$dir" >"$release"
  bound=$(mktemp)
  { printf 'Aks-Node-Controller-Repository: %s\n' "$binding"; cat "$release"; } >"$bound"
  rm -f "$release"
  mv "$bound" "$dir/Release"
  chmod 0644 "$dir/Release"
  sign --clearsign -o "$dir/InRelease" "$dir/Release"
  ;;
rpm)
  list=$(mktemp)
  find . -path ./aks-node-controller -prune -o -type f \( -name 'aks-node-controller-[0-9]*.rpm' -o -name 'aks-node-controller-delta-[0-9]*.rpm' \) -print |
    sed 's|^\./||' >"$list"
  mkdir -p aks-node-controller
  createrepo_c -q --pkglist "$list" --repo "aks-node-controller-repository:$binding" --outputdir aks-node-controller .
  rm -f "$list"
  sign --armor --detach-sign -o aks-node-controller/repodata/repomd.xml.asc aks-node-controller/repodata/repomd.xml
  ;;
*) usage ;;
esac
