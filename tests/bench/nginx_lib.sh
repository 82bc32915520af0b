# Sourced by the benchmarks and tests that run a private nginx.

# nginx_temp_paths NGINX DIR: the *_temp_path directives that put nginx's
# temporary folders under DIR (by default they are in /var/lib/nginx,
# root's), one for each module this nginx build has: a directive of a
# module built without is an unknown directive.
nginx_temp_paths() {
    local m out="client_body_temp_path $2/body;"
    for m in proxy fastcgi uwsgi scgi; do
        "$1" -V 2>&1 | grep -q -- "--without-http_${m}_module" || out+=" ${m}_temp_path $2/$m;"
    done
    printf '%s\n' "$out"
}
