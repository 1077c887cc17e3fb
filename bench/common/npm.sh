# Sourced by the bench scripts. npm_install DIR [NPM FLAGS] PACKAGE...
# installs npm packages into DIR/node_modules. DIR gets its own package.json
# first: `npm install` in a folder without one installs into the nearest
# parent folder that has one (bench/.peers, once a run there made it), so
# DIR/node_modules would never appear.
npm_install() {
  local dir=$1
  shift
  mkdir -p "$dir"
  [[ -f $dir/package.json ]] || echo '{"private":true}' >"$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund "$@" >/dev/null)
}
