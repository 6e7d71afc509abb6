// Renders the bondvenue OpenAPI document. Everything is served by this
// server: no validator badge, no outside calls.
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/api/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: "none",
    tryItOutEnabled: false,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
};
