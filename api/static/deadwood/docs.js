// The API reference: Swagger UI on the served document. validatorUrl null: Swagger UI would
// otherwise send the document to an outside validator for its badge.
"use strict";
(function () {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
  });
})();
