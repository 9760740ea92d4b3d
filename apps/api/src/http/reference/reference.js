/* global window, SwaggerUIBundle */
// Renders /v1/openapi.json with Swagger UI, served from this server's own files (no CDN, no online validator).
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
  });
});
