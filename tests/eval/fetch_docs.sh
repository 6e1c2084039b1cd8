#!/usr/bin/env bash
# Finds the docs each eval question set asks about, installing the Debian package that
# ships them when it is missing, and prints one "NAME<TAB>FOLDER" line per set found.
#
#   tests/eval/fetch_docs.sh [--no-install] [SET...]
#
# SETs: manual httpx cmake vim postgres sphinx (the default: the sets `make bench` runs),
# python, git, apache, sqlite and flask (the held-out sets; see tests/eval/README.md). A set
# that cannot be found or installed is reported on stderr and left out. The question sets
# were written against Debian 12's cmake-data 3.25.1, vim-runtime 9.0.1378,
# postgresql-doc-15 15.18-0+deb12u1, sphinx-doc 5.3.0-4, python3.11-doc 3.11.2, git-doc
# 2.39.5, apache2-doc 2.4.68-1~deb12u1, sqlite3-doc 3.40.1-2+deb12u2 and python-flask-doc
# 2.2.2-3.
# The django held-out set was written against python-django-doc 3:3.2.25-0+deb12u3.
# The held-out set pytest was written against python-pytest-doc 7.2.1-2.
# The held-out set click was written against python-click-doc 8.1.3-2.
# The held-out set zsh was written against zsh-doc 5.9-4 (its HTML is in zsh-common/html).
# The held-out set node was written against nodejs-doc 18.20.4+dfsg-1~deb12u3.
# The held-out set jinja was written against python-jinja2-doc 3.1.2-1+deb12u3.
# nodejs-doc cannot be installed beside NodeSource's nodejs (it would remove it): then its
# package is downloaded and unpacked into $DOCSAGENT_EVAL_CACHE (default
# ~/.cache/docsagent-eval/nodejs-doc), and the set reads the docs there. No package is
# ever removed.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
install=1
if [[ "${1:-}" == "--no-install" ]]; then
    install=0
    shift
fi
sets=("$@")
unpacked="${DOCSAGENT_EVAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docsagent-eval}"
[[ ${#sets[@]} -eq 0 ]] && sets=(manual httpx cmake vim postgres sphinx)

package_of() {
    case "$1" in
        cmake) echo cmake-data ;;
        vim) echo vim-runtime ;;
        postgres) echo postgresql-doc-15 ;;
        sphinx) echo sphinx-doc ;;
        python) echo python3-doc ;;
        git) echo git-doc ;;
        apache) echo apache2-doc ;;
        sqlite) echo sqlite3-doc ;;
        flask) echo python-flask-doc ;;
        django) echo python-django-doc ;;
        pytest) echo python-pytest-doc ;;
        click) echo python-click-doc ;;
        zsh) echo zsh-doc ;;
        node) echo nodejs-doc ;;
        jinja) echo python-jinja2-doc ;;
    esac
}

newest() { # the last of the existing folders, by version order
    local found=()
    for dir in "$@"; do [[ -d "$dir" ]] && found+=("$dir"); done
    [[ ${#found[@]} -gt 0 ]] && printf '%s\n' "${found[@]}" | sort -V | tail -n 1
}

folder_of() {
    case "$1" in
        manual) echo "$repo/data/manual" ;;
        httpx) [[ -d "$repo/../shared/corpora/httpx-docs" ]] &&
            (cd "$repo/../shared/corpora/httpx-docs" && pwd) ;;
        cmake) newest /usr/share/cmake-*/Help ;;
        vim) newest /usr/share/vim/vim[0-9]*/doc ;;
        postgres) [[ -f /usr/share/doc/postgresql-doc-15/html/index.html ]] &&
            echo /usr/share/doc/postgresql-doc-15/html ;;
        sphinx) [[ -f /usr/share/doc/sphinx-doc/html/index.html ]] &&
            echo /usr/share/doc/sphinx-doc/html ;;
        python) newest /usr/share/doc/python3.*/html/_sources ;;
        git) [[ -f /usr/share/doc/git-doc/git.html ]] && echo /usr/share/doc/git-doc ;;
        apache) [[ -f /usr/share/doc/apache2-doc/manual/en/index.html ]] &&
            echo /usr/share/doc/apache2-doc/manual/en ;;
        sqlite) [[ -f /usr/share/doc/sqlite3/cli.html ]] && echo /usr/share/doc/sqlite3 ;;
        flask) [[ -f /usr/share/doc/python-flask-doc/html/index.html ]] &&
            echo /usr/share/doc/python-flask-doc/html ;;
        django) [[ -f /usr/share/doc/python-django-doc/html/index.html ]] &&
            echo /usr/share/doc/python-django-doc/html ;;
        pytest) [[ -f /usr/share/doc/python-pytest-doc/html/index.html ]] &&
            echo /usr/share/doc/python-pytest-doc/html ;;
        click) [[ -f /usr/share/doc/python-click-doc/html/index.html ]] &&
            echo /usr/share/doc/python-click-doc/html ;;
        zsh) [[ -f /usr/share/doc/zsh-common/html/index.html ]] &&
            echo /usr/share/doc/zsh-common/html ;;
        jinja) [[ -f /usr/share/doc/python-jinja2-doc/html/index.html ]] &&
            echo /usr/share/doc/python-jinja2-doc/html ;;
        # NodeSource's nodejs package ships other API docs in the same folder: only
        # Debian's nodejs-doc holds the pages the set counts lines of.
        node) if [[ -f /usr/share/doc/nodejs/api/index.html ]] &&
            dpkg-query -W -f='${Status}' nodejs-doc 2>/dev/null | grep -q 'ok installed'; then
            echo /usr/share/doc/nodejs/api
        elif [[ -f "$unpacked/nodejs-doc/usr/share/doc/nodejs/api/index.html" ]]; then
            echo "$unpacked/nodejs-doc/usr/share/doc/nodejs/api"
        fi ;;
    esac
}

unpack() { # download a package and unpack it into the cache, installing nothing
    local work
    work="$(mktemp -d)" || return 1
    (cd "$work" && apt-get download -qq "$1" >/dev/null 2>&1) &&
        mkdir -p "$unpacked/$1" && dpkg-deb -x "$work"/"$1"_*.deb "$unpacked/$1"
    local done=$?
    rm -rf "$work"
    return $done
}

for name in "${sets[@]}"; do
    case "$name" in
        manual | httpx | cmake | vim | postgres | sphinx | python | git | apache | sqlite | flask | django | pytest | click | zsh | node | jinja) ;;
        *) echo "fetch_docs: unknown set '$name' (sets: manual httpx cmake vim postgres sphinx python git apache sqlite flask django pytest click zsh node jinja)" >&2
           continue ;;
    esac
    folder="$(folder_of "$name")"
    package="$(package_of "$name")"
    if [[ -z "$folder" && -n "$package" && $install -eq 1 ]]; then
        echo "fetch_docs: installing $package for the $name docs" >&2
        sudo=()
        [[ $(id -u) -ne 0 ]] && sudo=(sudo)
        if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends --no-remove "$package" >/dev/null 2>&1; then
            "${sudo[@]}" apt-get update -qq >/dev/null 2>&1
            "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -qq --no-install-recommends --no-remove "$package" >/dev/null 2>&1
        fi
        folder="$(folder_of "$name")"
        if [[ -z "$folder" ]] && unpack "$package"; then
            folder="$(folder_of "$name")"
        fi
    fi
    if [[ -z "$folder" ]]; then
        echo "fetch_docs: no $name docs here${package:+ (Debian package $package)}" >&2
        continue
    fi
    printf '%s\t%s\n' "$name" "$folder"
done
