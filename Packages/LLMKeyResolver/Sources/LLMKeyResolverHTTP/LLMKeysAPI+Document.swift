extension LLMKeysAPI {
    /// The routes ``handle(_:body:)`` answers, by path: the methods each takes (405 with `Allow` for the rest).
    public static let routes: [String: [String]] = [
        "/api/api-key-status": ["GET"],
        "/api/v1/settings/llm-keys": ["GET", "POST"],
        "/openapi.yaml": ["GET"],
    ]

    /// The API's OpenAPI document, served at `GET /openapi.yaml` without a token.
    public static let openAPIDocument = """
        openapi: 3.1.0
        info:
          title: OpenCat LLM key API
          version: 1.0.0
          summary: Whether a user's plan gives the app an LLM key, and the user's own provider keys (masked).
          description: |
            Every route but this document needs `Authorization: Bearer <HS256 JWT>` (401 otherwise, `error.reason`
            naming the failed check). Keys are never echoed: answers mask them (`sk-...xyz123`). Errors are
            `{"error": {"code", "message", "field"?, "reason"?}}`; a known path asked with another method is 405 with
            `Allow`.
        security:
          - bearer: []
        paths:
          /api/api-key-status:
            get:
              operationId: getAPIKeyStatus
              summary: The user's tier and, per provider, whether a key is available and where it comes from.
              responses:
                "200": { description: The status., content: { application/json: { schema: { type: object } } } }
                default: { $ref: "#/components/responses/Error" }
          /api/v1/settings/llm-keys:
            get:
              operationId: getLLMKeys
              summary: The user's stored keys, masked, by provider.
              responses:
                "200": { $ref: "#/components/responses/MaskedKeys" }
                default: { $ref: "#/components/responses/Error" }
            post:
              operationId: updateLLMKeys
              summary: A partial update (absent unchanged, null deletes); a key in the wrong format is 422 naming the field.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        openai: { type: [string, "null"] }
                        anthropic: { type: [string, "null"] }
                        google: { type: [string, "null"] }
              responses:
                "200": { $ref: "#/components/responses/MaskedKeys" }
                default: { $ref: "#/components/responses/Error" }
          /openapi.yaml:
            get:
              operationId: getDocument
              summary: This document.
              security: []
              responses: { "200": { description: The document., content: { application/yaml: {} } } }
        components:
          securitySchemes:
            bearer: { type: http, scheme: bearer, bearerFormat: JWT }
          responses:
            MaskedKeys:
              description: The keys, masked.
              content: { application/json: { schema: { type: object, additionalProperties: { type: string } } } }
            Error:
              description: 400, 401, 404, 405, 413, 422, 500.
              content:
                application/json:
                  schema:
                    type: object
                    required: [error]
                    properties:
                      error:
                        type: object
                        required: [code, message]
                        properties:
                          code: { type: string }
                          message: { type: string }
                          field: { type: string }
                          reason: { type: string }

        """
}
