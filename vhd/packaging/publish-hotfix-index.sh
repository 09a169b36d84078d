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
set -eu
usage() { echo "usage: $0 apt <repository root> <suite> [<pool dir>] | rpm <repository root>" >&2; exit 2; }
[ $# -ge 2 ] || usage
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
  apt-ftparchive -o "APT::FTPArchive::Release::Suite=$suite" release "$dir" >"$release"
  mv "$release" "$dir/Release"
  chmod 0644 "$dir/Release"
  sign --clearsign -o "$dir/InRelease" "$dir/Release"
  ;;
rpm)
  list=$(mktemp)
  find . -path ./aks-node-controller -prune -o -type f \( -name 'aks-node-controller-[0-9]*.rpm' -o -name 'aks-node-controller-delta-[0-9]*.rpm' \) -print |
    sed 's|^\./||' >"$list"
  mkdir -p aks-node-controller
  createrepo_c -q --pkglist "$list" --outputdir aks-node-controller .
  rm -f "$list"
  sign --armor --detach-sign -o aks-node-controller/repodata/repomd.xml.asc aks-node-controller/repodata/repomd.xml
  ;;
*) usage ;;
esac
