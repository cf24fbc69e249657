# The web client (services/web) as an nginx image: the static files plus the two npm packages vendored
# from the pinned services/web/package-lock.json (what `make web` does), so no CDN at run time.
#   docker-compose: the `proxy` service (deploy/nginx.conf mounted over the config: files at /, API proxied)
#   k8s:            the `web` Deployment (this image's own deploy/web-nginx.conf: the files only)
FROM node:20-alpine AS vendor
WORKDIR /web
COPY services/web/package.json services/web/package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
 && mkdir vendor \
 && cp node_modules/preact/dist/preact.mjs node_modules/preact/hooks/dist/hooks.mjs node_modules/htm/dist/htm.mjs vendor/

FROM nginx:1.27-alpine
COPY deploy/web-nginx.conf /etc/nginx/nginx.conf
COPY services/web/static /usr/share/nginx/html
COPY --from=vendor /web/vendor /usr/share/nginx/html/vendor
EXPOSE 80
